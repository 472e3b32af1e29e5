import type { DossierContext } from '../context.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import type { FingerprintMatch } from '../ports/duplicate-store.ts';
import { alignProfiles } from './align.ts';
import { indexedFingerprints } from './fingerprints.ts';
import { formGroup, joinGroup } from './groups.ts';
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
async function verify(ctx: DossierContext, collection: Collection, doc: DocumentRecord, candidates: FingerprintMatch[], cache: ProfileCache): Promise<VerifiedPair[]> {
  const threshold = thresholdOf(collection);
  const own = await cache.get(doc);
  const others = await ctx.store.getDocuments(candidates.map((match) => match.documentId));
  const verified: VerifiedPair[] = [];
  for (const other of others) {
    if (other.status !== 'ready' || (await ctx.store.isDismissedPair(doc.id, other.id))) continue;
    const coverage = coverageOf(alignProfiles(own, await cache.get(other)));
    if (coverage >= threshold) verified.push({ other, coverage });
  }
  return verified.sort((a, b) => b.coverage - a.coverage);
}

/**
 * The incremental check of one ready document (the `duplicates.check` job, with enableDeduplication): index its
 * fingerprints, look up documents sharing enough of them (a lookup in the persisted index, not a rescan), align
 * the best candidates with it, then join the group of the best match or form a new group with it.
 * Returns the group the document is in afterwards, or null.
 */
export async function checkDocument(ctx: DossierContext, collection: Collection, doc: DocumentRecord, cache = new ProfileCache(ctx, 64)) {
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
  const [best] = await verify(ctx, collection, doc, candidates, cache);
  if (!best) return null;
  const group = await ctx.store.duplicateGroupOf(best.other.id);
  return group ? joinGroup(ctx, collection, group, [doc], cache) : formGroup(ctx, collection, [doc, best.other], cache);
}
