import type { DuplicateStore } from '../ports/duplicate-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { ContextPart } from '../context.ts';
import type { DuplicateGroupRecord, DuplicateMemberRecord } from '../domain/duplicates.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import { newId } from '../util/ids.ts';
import { alignProfiles } from './align.ts';
import type { DuplicateProfile } from './fingerprints.ts';
import { sharedPassages } from './passages.ts';
import { markdownOf, type ProfileCache } from './texts.ts';

/** Keep a document's retrieval flag in the store and the index in step (non-canonical rows are prefiltered out). */
export async function setCanonicalFlag(
  ctx: ContextPart<'index', DocumentStore>,
  collection: Collection,
  documentId: string,
  canonical: boolean,
): Promise<void> {
  await ctx.store.updateDocument(documentId, { canonical });
  await ctx.index.updateDocumentAttributes(collection.id, documentId, { canonical });
}

/**
 * The canonical of a new group: the most complete member (most content words), the earliest uploaded on a tie. A
 * copy that only excerpts a longer document never hides the longer one.
 */
export function pickCanonical(members: { doc: DocumentRecord; profile: DuplicateProfile }[]): DocumentRecord {
  const ranked = [...members].sort(
    (a, b) => b.profile.words.length - a.profile.words.length || a.doc.createdAt.localeCompare(b.doc.createdAt) || a.doc.id.localeCompare(b.doc.id),
  );
  return ranked[0]!.doc;
}

/** The member rows of a group around a canonical: coverages measured against it, and the passages shared with it. */
async function membersAround(canonical: DocumentRecord, docs: DocumentRecord[], cache: ProfileCache): Promise<DuplicateMemberRecord[]> {
  const canonicalSide = { profile: await cache.get(canonical), markdown: await markdownOf(cache.ctx, canonical) };
  const members: DuplicateMemberRecord[] = [];
  for (const doc of docs) {
    if (doc.id === canonical.id) {
      members.push({ documentId: doc.id, filename: doc.filename, relationship: 'canonical', coverageToCanonical: null, coverageFromCanonical: null });
      continue;
    }
    const memberSide = { profile: await cache.get(doc), markdown: await markdownOf(cache.ctx, doc) };
    const alignment = alignProfiles(memberSide.profile, canonicalSide.profile);
    members.push({
      documentId: doc.id,
      filename: doc.filename,
      relationship: 'near_duplicate',
      coverageToCanonical: round(alignment.leftCoverage),
      coverageFromCanonical: round(alignment.rightCoverage),
      sharedPassages: sharedPassages(alignment.passages, memberSide, canonicalSide),
    });
  }
  return members;
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

/** Retrieval flags still to set, by document id (canonical or not): a detection run sets them all at once. */
export type FlagChanges = Map<string, boolean>;

/** Set retrieval flags in the store, then in the index in one write per value. */
export async function applyFlags(ctx: ContextPart<'index', DocumentStore>, collection: Collection, changes: FlagChanges): Promise<void> {
  for (const [documentId, canonical] of changes) await ctx.store.updateDocument(documentId, { canonical });
  for (const canonical of [true, false]) {
    const ids = [...changes].filter(([, value]) => value === canonical).map(([id]) => id);
    if (ids.length > 0) await ctx.index.updateDocumentAttributes(collection.id, ids, { canonical });
  }
}

/**
 * The incremental check's flags: the store now (the API shows the decision at once), the chunk index by a
 * `duplicates.flags` job, so one check is not held up by an index write (two LanceDB table versions per value).
 * The job syncs the index to the store's current flags, so jobs for the same document may run in any order.
 */
export async function recordFlagsThenIndex(
  ctx: ContextPart<'queue' | 'wakeWorkers', DocumentStore>,
  collection: Collection,
  changes: FlagChanges,
  jobType: string,
): Promise<void> {
  if (changes.size === 0) return;
  for (const [documentId, canonical] of changes) await ctx.store.updateDocument(documentId, { canonical });
  await ctx.queue.enqueue({ type: jobType, payload: { collectionId: collection.id, documentIds: [...changes.keys()] }, maxAttempts: 5 });
  ctx.wakeWorkers();
}

/** Bring the chunk index's retrieval flags of these documents in line with the store (one write per value). */
export async function syncIndexFlags(ctx: ContextPart<'index', DocumentStore>, collectionId: string, documentIds: string[]): Promise<void> {
  const docs = (await ctx.store.getDocuments(documentIds)).filter((doc) => doc.collectionId === collectionId && doc.status === 'ready');
  for (const canonical of [true, false]) {
    const ids = docs.filter((doc) => doc.canonical === canonical).map((doc) => doc.id);
    if (ids.length > 0) await ctx.index.updateDocumentAttributes(collectionId, ids, { canonical });
  }
}

/** Write a group and the retrieval flags of its members (into `deferred` when given, applied by the caller). */
async function writeGroup(
  ctx: ContextPart<'index', DuplicateStore & DocumentStore>,
  collection: Collection,
  group: DuplicateGroupRecord,
  isNew: boolean,
  deferred?: FlagChanges,
): Promise<void> {
  if (isNew) await ctx.store.insertDuplicateGroup(group);
  else await ctx.store.replaceDuplicateGroup(group);
  const current = new Map((await ctx.store.getDocuments(group.members.map((member) => member.documentId))).map((doc) => [doc.id, doc.canonical]));
  const changes: FlagChanges = deferred ?? new Map();
  for (const member of group.members) {
    const canonical = member.relationship === 'canonical';
    if (current.get(member.documentId) !== canonical) changes.set(member.documentId, canonical);
  }
  if (!deferred) await applyFlags(ctx, collection, changes);
}

/** Form a new group of these documents, canonical `chosen` (a document every other member was matched with) or by pickCanonical. */
export async function formGroup(
  ctx: ContextPart<'index', DuplicateStore & DocumentStore>,
  collection: Collection,
  docs: DocumentRecord[],
  cache: ProfileCache,
  deferred?: FlagChanges,
  chosen?: DocumentRecord,
): Promise<DuplicateGroupRecord> {
  const canonical = chosen ?? pickCanonical(await Promise.all(docs.map(async (doc) => ({ doc, profile: await cache.get(doc) }))));
  const group: DuplicateGroupRecord = {
    id: newId(),
    collectionId: collection.id,
    canonicalDocumentId: canonical.id,
    detectedAt: new Date().toISOString(),
    members: await membersAround(canonical, docs, cache),
  };
  await writeGroup(ctx, collection, group, true, deferred);
  return group;
}

/** Add documents to an existing group; its canonical stays (it may have been chosen by a user). */
export async function joinGroup(
  ctx: ContextPart<'index', DocumentStore & DuplicateStore>,
  collection: Collection,
  group: DuplicateGroupRecord,
  docs: DocumentRecord[],
  cache: ProfileCache,
  deferred?: FlagChanges,
): Promise<DuplicateGroupRecord> {
  const canonical = await ctx.store.getDocument(group.canonicalDocumentId);
  if (!canonical) return group;
  const joined = await membersAround(canonical, docs, cache);
  const updated = { ...group, members: [...group.members.filter((member) => !docs.some((doc) => doc.id === member.documentId)), ...joined] };
  await writeGroup(ctx, collection, updated, false, deferred);
  return updated;
}

/** Make another member canonical; the old canonical becomes a near-duplicate with its coverage cleared. */
export async function promoteMember(
  ctx: ContextPart<'index', DocumentStore & DuplicateStore>,
  collection: Collection,
  group: DuplicateGroupRecord,
  canonicalId: string,
  cache: ProfileCache,
): Promise<boolean> {
  if (group.canonicalDocumentId === canonicalId) return false;
  const docs = await ctx.store.getDocuments(group.members.map((member) => member.documentId));
  const canonical = docs.find((doc) => doc.id === canonicalId)!;
  const members = (await membersAround(canonical, docs, cache)).map((member) =>
    member.documentId === group.canonicalDocumentId ? { ...member, coverageToCanonical: null, coverageFromCanonical: null, sharedPassages: undefined } : member,
  );
  await writeGroup(ctx, collection, { ...group, canonicalDocumentId: canonicalId, members }, false);
  return true;
}

/** Disband a group: every member back in retrieval, and detection never pairs them again. */
export async function disbandGroup(
  ctx: ContextPart<'index', DuplicateStore & DocumentStore>,
  collection: Collection,
  group: DuplicateGroupRecord,
): Promise<void> {
  await ctx.store.deleteDuplicateGroup(group.id);
  await ctx.store.dismissDuplicatePairs(
    collection.id,
    group.members.map((member) => member.documentId),
  );
  for (const member of group.members) await setCanonicalFlag(ctx, collection, member.documentId, true);
}

/**
 * Before a document is deleted: leave its group. A deleted canonical hands over to the most complete remaining
 * member; a group left with one member is dissolved (that member is back in retrieval).
 */
export async function leaveGroup(
  ctx: ContextPart<'index', DuplicateStore & DocumentStore>,
  collection: Collection,
  documentId: string,
  cache: ProfileCache,
): Promise<void> {
  const group = await ctx.store.duplicateGroupOf(documentId);
  if (!group) return;
  const rest = await ctx.store.getDocuments(group.members.map((member) => member.documentId).filter((id) => id !== documentId));
  if (rest.length < 2) {
    await ctx.store.deleteDuplicateGroup(group.id);
    for (const doc of rest) await setCanonicalFlag(ctx, collection, doc.id, true);
    return;
  }
  const canonical =
    group.canonicalDocumentId === documentId
      ? pickCanonical(await Promise.all(rest.map(async (doc) => ({ doc, profile: await cache.get(doc) }))))
      : rest.find((doc) => doc.id === group.canonicalDocumentId)!;
  await writeGroup(ctx, collection, { ...group, canonicalDocumentId: canonical.id, members: await membersAround(canonical, rest, cache) }, false);
}
