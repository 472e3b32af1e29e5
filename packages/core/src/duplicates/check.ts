import type { DocumentStore } from '../ports/document-store.ts';
import type { DuplicateStore } from '../ports/duplicate-store.ts';
import type { ContextPart } from '../context.ts';
import type { DuplicateGroupRecord } from '../domain/duplicates.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import type { FingerprintMatch } from '../ports/duplicate-store.ts';
import { alignProfiles } from './align.ts';
import { indexedFingerprints } from './fingerprints.ts';
import { DUPLICATE_JOBS } from './detect.ts';
import { type FlagChanges, formGroup, joinGroup, recordFlagsThenIndex } from './groups.ts';
import { coverageOf, isCandidate } from './score.ts';
import { MAX_CANDIDATES, MAX_POSTING, thresholdOf } from './settings.ts';
import { ProfileCache } from './texts.ts';

/** The coverage a fingerprint match suggests, either way (the larger): the order candidates are aligned in. */
export const estimatedCoverage = (match: FingerprintMatch, ownCount: number): number =>
  Math.max(match.shared / Math.max(1, ownCount), match.shared / Math.max(1, match.fingerprintCount));

/** A verified near-duplicate of a document: the other document and the coverage either way (the larger). */
export interface VerifiedPair {
  other: DocumentRecord;
  coverage: number;
}

/** Align candidates with the document; the qualifying ones, best first. */
async function verify(
  store: DocumentStore & DuplicateStore,
  collection: Collection,
  doc: DocumentRecord,
  candidates: FingerprintMatch[],
  cache: ProfileCache,
): Promise<VerifiedPair[]> {
  const threshold = thresholdOf(collection);
  const own = await cache.get(doc);
  const others = await store.getDocuments(candidates.map((match) => match.documentId));
  const verified: VerifiedPair[] = [];
  for (const other of others) {
    if (other.status !== 'ready' || (await store.isDismissedPair(doc.id, other.id))) continue;
    const coverage = coverageOf(alignProfiles(own, await cache.get(other)));
    if (coverage >= threshold) verified.push({ other, coverage });
  }
  return verified.sort((a, b) => b.coverage - a.coverage);
}

/**
 * The incremental check of one ready document (the `duplicates.check` job, with enableDeduplication): index its
 * fingerprints, look up documents sharing enough of them (a lookup in the persisted index, not a rescan), align
 * the best candidates with it, then form a group with the best match, or join its group when the document also
 * matches that group's canonical (else the next match is tried).
 * Returns the group the document is in afterwards, or null.
 */
export async function checkDocument(
  ctx: ContextPart<'blobs' | 'index' | 'queue' | 'wakeWorkers', DuplicateStore & DocumentStore>,
  collection: Collection,
  doc: DocumentRecord,
  cache = new ProfileCache(ctx, 64),
) {
  const profile = await cache.get(doc);
  const fingerprints = indexedFingerprints(profile);
  await ctx.store.putFingerprints([{ documentId: doc.id, collectionId: collection.id, shingleCount: profile.shingles.length, fingerprints }]);
  const existing = await ctx.store.duplicateGroupOf(doc.id);
  if (existing) return existing;
  const matches = await ctx.store.fingerprintMatches(collection.id, doc.id, fingerprints, MAX_POSTING);
  const candidates = matches
    .filter((match) => isCandidate(match, fingerprints.length))
    .sort((a, b) => estimatedCoverage(b, fingerprints.length) - estimatedCoverage(a, fingerprints.length))
    .slice(0, MAX_CANDIDATES);
  const flags: FlagChanges = new Map();
  const group = await groupWithBestMatch(ctx, collection, doc, await verify(ctx.store, collection, doc, candidates, cache), cache, flags);
  await recordFlagsThenIndex(ctx, collection, flags, DUPLICATE_JOBS.flags);
  return group;
}

/** Form a group with the best verified match, or join its group when the document also matches that group's canonical. */
async function groupWithBestMatch(
  ctx: ContextPart<'index', DuplicateStore & DocumentStore>,
  collection: Collection,
  doc: DocumentRecord,
  verified: VerifiedPair[],
  cache: ProfileCache,
  flags: FlagChanges,
): Promise<DuplicateGroupRecord | null> {
  for (const { other } of verified) {
    const group = await ctx.store.duplicateGroupOf(other.id);
    if (!group) return formGroup(ctx, collection, [doc, other], cache, flags);
    if (await matchesCanonical(ctx.store, collection, doc, group, cache)) return joinGroup(ctx, collection, group, [doc], cache, flags);
  }
  return null;
}

/** Does a document match a group's canonical too? (A partial overlap with one member is not enough to join.) */
async function matchesCanonical(
  store: DocumentStore,
  collection: Collection,
  doc: DocumentRecord,
  group: DuplicateGroupRecord,
  cache: ProfileCache,
): Promise<boolean> {
  const canonical = await store.getDocument(group.canonicalDocumentId);
  if (!canonical) return false;
  return coverageOf(alignProfiles(await cache.get(doc), await cache.get(canonical))) >= thresholdOf(collection);
}
