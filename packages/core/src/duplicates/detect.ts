import type { DuplicateStore } from '../ports/duplicate-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { type ContextPart, type DossierContext, eventsSaved } from '../context.ts';
import type { DuplicateFingerprints, DuplicateGroupRecord, DuplicateRunRecord } from '../domain/duplicates.ts';
import { DossierError, isDossierError } from '../domain/errors.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import { type ServiceEvent, serviceEvent } from '../events/catalogue.ts';
import type { Job } from '../ports/job-queue.ts';
import { newId } from '../util/ids.ts';
import { alignProfiles } from './align.ts';
import { indexedFingerprints } from './fingerprints.ts';
import { applyFlags, type FlagChanges, formGroup, joinGroup } from './groups.ts';
import { coverageOf, isCandidate } from './score.ts';
import { MAX_POSTING, thresholdOf } from './settings.ts';
import { ProfileCache, profileOf } from './texts.ts';

/** Queue job types of a detection run: fingerprint a batch of documents, then group the whole collection. */
export const DUPLICATE_JOBS = {
  fingerprint: 'duplicates.fingerprint',
  group: 'duplicates.group',
  check: 'duplicates.check',
  flags: 'duplicates.flags',
} as const;
/** Documents fingerprinted per job. */
export const FINGERPRINT_BATCH = 500;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const now = (): string => new Date().toISOString();

/** Start a run over every ready document: 409 while one is pending or running. */
export async function startDetection(
  ctx: ContextPart<'queue' | 'wakeWorkers', DuplicateStore & DocumentStore>,
  collection: Collection,
): Promise<DuplicateRunRecord> {
  const latest = await ctx.store.latestDuplicateRun(collection.id);
  if (latest && (latest.status === 'pending' || latest.status === 'running')) {
    throw new DossierError('conflict', `A duplicate detection run is already in flight (${latest.id}, ${latest.status})`);
  }
  const ready = (await ctx.store.findDocuments(collection.id, {})).filter((doc) => doc.status === 'ready').map((doc) => doc.id);
  const batches: string[][] = [];
  for (let start = 0; start < ready.length; start += FINGERPRINT_BATCH) batches.push(ready.slice(start, start + FINGERPRINT_BATCH));
  const run: DuplicateRunRecord = {
    id: newId(),
    collectionId: collection.id,
    status: 'pending',
    jobsEnqueued: batches.length + 1,
    jobsProcessed: 0,
    duplicatesDetected: null,
    duplicateGroupsCreated: null,
    startedAt: null,
    completedAt: null,
    error: null,
    createdAt: now(),
  };
  await ctx.store.insertDuplicateRun(run);
  for (const documentIds of batches)
    await ctx.queue.enqueue({ type: DUPLICATE_JOBS.fingerprint, payload: { runId: run.id, collectionId: collection.id, documentIds }, maxAttempts: 3 });
  if (batches.length === 0) await ctx.queue.enqueue({ type: DUPLICATE_JOBS.group, payload: { runId: run.id, collectionId: collection.id }, maxAttempts: 3 });
  ctx.wakeWorkers();
  return run;
}

/** The run of a job when it is still going, and its collection. */
async function liveRun(store: DuplicateStore & CollectionStore, job: Job): Promise<{ run: DuplicateRunRecord; collection: Collection } | null> {
  const run = await store.latestDuplicateRun(String(job.payload.collectionId));
  if (!run || run.id !== job.payload.runId || run.status === 'completed' || run.status === 'failed') return null;
  const collection = await store.getCollection(run.collectionId);
  if (!collection || collection.deletedAt) {
    await store.updateDuplicateRun(run.id, { status: 'failed', error: 'The collection was deleted', completedAt: now() });
    return null;
  }
  return { run, collection };
}

/** A fingerprint job: index a batch of documents; the last one to finish queues the grouping job. */
export async function runFingerprintJob(
  ctx: ContextPart<'blobs' | 'queue' | 'wakeWorkers', DuplicateStore & CollectionStore & DocumentStore>,
  job: Job,
): Promise<void> {
  const live = await liveRun(ctx.store, job);
  if (!live) return;
  if (live.run.status === 'pending') await ctx.store.updateDuplicateRun(live.run.id, { status: 'running', startedAt: now() });
  const entries: DuplicateFingerprints[] = [];
  for (const doc of await ctx.store.getDocuments((job.payload.documentIds as string[]) ?? [])) {
    if (doc.status !== 'ready') continue;
    const profile = await profileOf(ctx, doc);
    entries.push({ documentId: doc.id, collectionId: live.collection.id, shingleCount: profile.shingles.length, fingerprints: indexedFingerprints(profile) });
    if (entries.length % 25 === 0) await yieldToLoop();
  }
  // The postings are written once for the whole collection by the group job (rebuildFingerprintPostings).
  await ctx.store.putDocumentFingerprints(entries);
  const counted = await ctx.store.countDuplicateJob(live.run.id);
  if (counted.jobsProcessed === (counted.jobsEnqueued ?? 0) - 1) {
    await ctx.queue.enqueue({ type: DUPLICATE_JOBS.group, payload: { runId: live.run.id, collectionId: live.collection.id }, maxAttempts: 3 });
    ctx.wakeWorkers();
  }
}

/** Documents read per query when the candidates' records are fetched. */
const DOCUMENT_PAGE = 500;

/** The ready documents among these ids, by id (only the candidates are read: a whole collection is not needed). */
async function readyDocuments(store: DocumentStore, collectionId: string, ids: string[]): Promise<Map<string, DocumentRecord>> {
  const docs = new Map<string, DocumentRecord>();
  for (let start = 0; start < ids.length; start += DOCUMENT_PAGE) {
    for (const doc of await store.getDocuments(ids.slice(start, start + DOCUMENT_PAGE)))
      if (doc.status === 'ready' && doc.collectionId === collectionId) docs.set(doc.id, doc);
  }
  return docs;
}

/** Candidate pairs of the collection (its postings made whole first), and the ready documents they name. */
async function candidatePairs(store: DuplicateStore & DocumentStore, collection: Collection) {
  await store.rebuildFingerprintPostings(collection.id);
  const pairs = await store.fingerprintPairs(collection.id, 1, MAX_POSTING);
  const ids = new Set(pairs.flatMap((pair) => [pair.left.documentId, pair.right.documentId]));
  return { pairs, docs: await readyDocuments(store, collection.id, [...ids]) };
}

/** Aligned pairs of the collection reaching the threshold, best coverage first. */
async function verifiedPairs(
  store: DuplicateStore,
  collection: Collection,
  candidates: Awaited<ReturnType<typeof candidatePairs>>['pairs'],
  docs: Map<string, DocumentRecord>,
  cache: ProfileCache,
) {
  const threshold = thresholdOf(collection);
  const pairs: { left: DocumentRecord; right: DocumentRecord; coverage: number }[] = [];
  for (const pair of candidates) {
    const left = docs.get(pair.left.documentId);
    const right = docs.get(pair.right.documentId);
    if (!left || !right || !isCandidate(pair.right, pair.left.fingerprintCount)) continue;
    if (await store.isDismissedPair(left.id, right.id)) continue;
    const coverage = coverageOf(alignProfiles(await cache.get(left), await cache.get(right)));
    if (coverage >= threshold) pairs.push({ left, right, coverage });
    await yieldToLoop();
  }
  return pairs.sort((a, b) => b.coverage - a.coverage);
}

/** Documents to place together: an existing group (documents joining it) or a new one; `anchor` is whom newcomers must match. */
interface Cluster {
  group: DuplicateGroupRecord | null;
  anchor: DocumentRecord;
  docs: DocumentRecord[];
}

/** Every document already in a group of the collection, by id, with its group as a cluster anchored on its canonical. */
async function existingClusters(
  store: DuplicateStore & DocumentStore,
  collection: Collection,
  docs: Map<string, DocumentRecord>,
): Promise<Map<string, Cluster>> {
  const placed = new Map<string, Cluster>();
  for (let offset = 0; ; offset += 500) {
    const page = await store.listDuplicateGroups(collection.id, 500, offset);
    for (const group of page.items) {
      const anchor = docs.get(group.canonicalDocumentId) ?? (await store.getDocument(group.canonicalDocumentId));
      if (!anchor) continue;
      const cluster: Cluster = { group, anchor, docs: [] };
      for (const member of group.members) placed.set(member.documentId, cluster);
    }
    if (offset + 500 >= page.total) break;
  }
  return placed;
}

/**
 * Plan the groups of verified pairs, best first: a pair of unplaced documents starts a group; a document paired
 * with a placed one joins that group only when it also matches the group's anchor (its canonical, or the more
 * complete document of a new group), so that chains of partial overlaps do not pull unrelated texts together.
 * Two placed documents stay where they are (user decisions are left alone).
 */
async function planClusters(
  ctx: ContextPart<never, DuplicateStore & DocumentStore>,
  collection: Collection,
  pairs: { left: DocumentRecord; right: DocumentRecord }[],
  docs: Map<string, DocumentRecord>,
  cache: ProfileCache,
) {
  const placed = await existingClusters(ctx.store, collection, docs);
  const threshold = thresholdOf(collection);
  for (const { left, right } of pairs) {
    const [leftCluster, rightCluster] = [placed.get(left.id), placed.get(right.id)];
    if (leftCluster && rightCluster) continue;
    if (!leftCluster && !rightCluster) {
      const anchor = (await cache.get(left)).words.length >= (await cache.get(right)).words.length ? left : right;
      const cluster: Cluster = { group: null, anchor, docs: [left, right] };
      placed.set(left.id, cluster);
      placed.set(right.id, cluster);
      continue;
    }
    const [cluster, placedDoc, newcomer] = leftCluster ? [leftCluster, left, right] : [rightCluster!, right, left];
    if (placedDoc.id !== cluster.anchor.id && coverageOf(alignProfiles(await cache.get(newcomer), await cache.get(cluster.anchor))) < threshold) continue;
    cluster.docs.push(newcomer);
    placed.set(newcomer.id, cluster);
  }
  return [...new Set(placed.values())].filter((cluster) => cluster.docs.length > 0);
}

/** Write the planned groups; retrieval flags are set at the end in one index write per value. */
async function writeClusters(ctx: ContextPart<'index', DocumentStore & DuplicateStore>, collection: Collection, clusters: Cluster[], cache: ProfileCache) {
  const flags: FlagChanges = new Map();
  let created = 0;
  let detected = 0;
  for (const cluster of clusters) {
    if (cluster.group) await joinGroup(ctx, collection, cluster.group, cluster.docs, cache, flags);
    else await formGroup(ctx, collection, cluster.docs, cache, flags, cluster.anchor); // every member was matched with the anchor
    if (!cluster.group) created++;
    detected += cluster.group ? cluster.docs.length : cluster.docs.length - 1;
    await yieldToLoop();
  }
  await applyFlags(ctx, collection, flags);
  return { duplicatesDetected: detected, duplicateGroupsCreated: created };
}

/** The `duplicates.completed` event of a run that ended (error null when it completed). */
function completedEvent(
  collection: Collection,
  runId: string,
  counters: { duplicatesDetected: number | null; duplicateGroupsCreated: number | null },
  error: string | null,
): ServiceEvent {
  return serviceEvent('duplicates.completed', collection, {
    runId,
    collectionId: collection.id,
    projectId: collection.projectId,
    status: error === null ? 'completed' : 'failed',
    ...counters,
    error,
  });
}

/** The grouping job: verify every candidate pair of the collection and place it; then the run is completed. */
export async function runGroupJob(ctx: DossierContext, job: Job): Promise<void> {
  const live = await liveRun(ctx.store, job);
  if (!live) return;
  const { run, collection } = live;
  try {
    if (run.status === 'pending') await ctx.store.updateDuplicateRun(run.id, { status: 'running', startedAt: now() });
    const { pairs, docs } = await candidatePairs(ctx.store, collection);
    const cache = new ProfileCache(ctx);
    const clusters = await planClusters(ctx, collection, await verifiedPairs(ctx.store, collection, pairs, docs, cache), docs, cache);
    const counters = await writeClusters(ctx, collection, clusters, cache);
    await ctx.store.countDuplicateJob(run.id);
    const completed = [completedEvent(collection, run.id, counters, null)];
    await ctx.store.updateDuplicateRun(run.id, { ...counters, status: 'completed', completedAt: now() }, completed);
    eventsSaved(ctx, completed);
    ctx.log.info('duplicate detection completed', { runId: run.id, collectionId: collection.id, ...counters });
  } catch (err) {
    const message = isDossierError(err) ? err.message : 'Internal error while detecting duplicates';
    const failed = [completedEvent(collection, run.id, { duplicatesDetected: null, duplicateGroupsCreated: null }, message)];
    await ctx.store.updateDuplicateRun(run.id, { status: 'failed', error: message, completedAt: now() }, failed);
    eventsSaved(ctx, failed);
    ctx.log.warn('duplicate detection failed', { runId: run.id, error: String(err) });
  }
}
