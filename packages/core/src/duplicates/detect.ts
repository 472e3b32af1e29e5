import { type DossierContext, eventsSaved } from '../context.ts';
import type { DuplicateFingerprints, DuplicateRunRecord } from '../domain/duplicates.ts';
import { DossierError, isDossierError } from '../domain/errors.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import { type ServiceEvent, serviceEvent } from '../events/catalogue.ts';
import type { Job } from '../ports/job-queue.ts';
import { newId } from '../util/ids.ts';
import { alignProfiles } from './align.ts';
import { indexedFingerprints } from './fingerprints.ts';
import { formGroup, joinGroup } from './groups.ts';
import { coverageOf, isCandidate } from './score.ts';
import { MAX_POSTING, thresholdOf } from './settings.ts';
import { ProfileCache, profileOf } from './texts.ts';

/** Queue job types of a detection run: fingerprint a batch of documents, then group the whole collection. */
export const DUPLICATE_JOBS = { fingerprint: 'duplicates.fingerprint', group: 'duplicates.group', check: 'duplicates.check' } as const;
/** Documents fingerprinted per job. */
export const FINGERPRINT_BATCH = 500;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const now = (): string => new Date().toISOString();

/** Start a run over every ready document: 409 while one is pending or running. */
export async function startDetection(ctx: DossierContext, collection: Collection): Promise<DuplicateRunRecord> {
  const latest = await ctx.store.latestDuplicateRun(collection.id);
  if (latest && (latest.status === 'pending' || latest.status === 'running')) {
    throw new DossierError('conflict', `A duplicate detection run is already in flight (${latest.id}, ${latest.status})`);
  }
  const ready = (await ctx.store.findDocuments(collection.id, {})).filter((doc) => doc.status === 'ready').map((doc) => doc.id);
  const batches: string[][] = [];
  for (let start = 0; start < ready.length; start += FINGERPRINT_BATCH) batches.push(ready.slice(start, start + FINGERPRINT_BATCH));
  const run: DuplicateRunRecord = {
    id: newId(), collectionId: collection.id, status: 'pending', jobsEnqueued: batches.length + 1, jobsProcessed: 0, duplicatesDetected: null,
    duplicateGroupsCreated: null, startedAt: null, completedAt: null, error: null, createdAt: now(),
  };
  await ctx.store.insertDuplicateRun(run);
  for (const documentIds of batches) await ctx.queue.enqueue({ type: DUPLICATE_JOBS.fingerprint, payload: { runId: run.id, collectionId: collection.id, documentIds }, maxAttempts: 3 });
  if (batches.length === 0) await ctx.queue.enqueue({ type: DUPLICATE_JOBS.group, payload: { runId: run.id, collectionId: collection.id }, maxAttempts: 3 });
  ctx.wakeWorkers();
  return run;
}

/** The run of a job when it is still going, and its collection. */
async function liveRun(ctx: DossierContext, job: Job): Promise<{ run: DuplicateRunRecord; collection: Collection } | null> {
  const run = await ctx.store.latestDuplicateRun(String(job.payload.collectionId));
  if (!run || run.id !== job.payload.runId || run.status === 'completed' || run.status === 'failed') return null;
  const collection = await ctx.store.getCollection(run.collectionId);
  if (!collection || collection.deletedAt) {
    await ctx.store.updateDuplicateRun(run.id, { status: 'failed', error: 'The collection was deleted', completedAt: now() });
    return null;
  }
  return { run, collection };
}

/** A fingerprint job: index a batch of documents; the last one to finish queues the grouping job. */
export async function runFingerprintJob(ctx: DossierContext, job: Job): Promise<void> {
  const live = await liveRun(ctx, job);
  if (!live) return;
  if (live.run.status === 'pending') await ctx.store.updateDuplicateRun(live.run.id, { status: 'running', startedAt: now() });
  const entries: DuplicateFingerprints[] = [];
  for (const doc of await ctx.store.getDocuments((job.payload.documentIds as string[]) ?? [])) {
    if (doc.status !== 'ready') continue;
    const profile = await profileOf(ctx, doc);
    entries.push({ documentId: doc.id, collectionId: live.collection.id, shingleCount: profile.shingles.length, fingerprints: indexedFingerprints(profile) });
    if (entries.length % 25 === 0) await yieldToLoop();
  }
  await ctx.store.putFingerprints(entries);
  const counted = await ctx.store.countDuplicateJob(live.run.id);
  if (counted.jobsProcessed === (counted.jobsEnqueued ?? 0) - 1) {
    await ctx.queue.enqueue({ type: DUPLICATE_JOBS.group, payload: { runId: live.run.id, collectionId: live.collection.id }, maxAttempts: 3 });
    ctx.wakeWorkers();
  }
}

/** Aligned pairs of the collection reaching the threshold, best coverage first. */
async function verifiedPairs(ctx: DossierContext, collection: Collection, docs: Map<string, DocumentRecord>, cache: ProfileCache) {
  const threshold = thresholdOf(collection);
  const pairs: { left: DocumentRecord; right: DocumentRecord; coverage: number }[] = [];
  for (const pair of await ctx.store.fingerprintPairs(collection.id, 1, MAX_POSTING)) {
    const left = docs.get(pair.left.documentId);
    const right = docs.get(pair.right.documentId);
    if (!left || !right || !isCandidate(pair.right, pair.left.fingerprintCount)) continue;
    if (await ctx.store.isDismissedPair(left.id, right.id)) continue;
    const coverage = coverageOf(alignProfiles(await cache.get(left), await cache.get(right)));
    if (coverage >= threshold) pairs.push({ left, right, coverage });
    await yieldToLoop();
  }
  return pairs.sort((a, b) => b.coverage - a.coverage);
}

/** Place one verified pair: join a group either side is in, or form a group of the two. */
async function placePair(ctx: DossierContext, collection: Collection, left: DocumentRecord, right: DocumentRecord, cache: ProfileCache): Promise<'created' | 'joined' | 'none'> {
  const [leftGroup, rightGroup] = [await ctx.store.duplicateGroupOf(left.id), await ctx.store.duplicateGroupOf(right.id)];
  if (leftGroup && rightGroup) return 'none'; // both already placed (the same or different groups): leave user decisions alone
  if (leftGroup || rightGroup) {
    await joinGroup(ctx, collection, (leftGroup ?? rightGroup)!, [leftGroup ? right : left], cache);
    return 'joined';
  }
  await formGroup(ctx, collection, [left, right], cache);
  return 'created';
}

/** The `duplicates.completed` event of a run that ended (error null when it completed). */
function completedEvent(
  collection: Collection,
  runId: string,
  counters: { duplicatesDetected: number | null; duplicateGroupsCreated: number | null },
  error: string | null,
): ServiceEvent {
  return serviceEvent('duplicates.completed', collection.projectId, {
    runId, collectionId: collection.id, projectId: collection.projectId, status: error === null ? 'completed' : 'failed', ...counters, error,
  });
}

/** The grouping job: verify every candidate pair of the collection and place it; then the run is completed. */
export async function runGroupJob(ctx: DossierContext, job: Job): Promise<void> {
  const live = await liveRun(ctx, job);
  if (!live) return;
  const { run, collection } = live;
  try {
    if (run.status === 'pending') await ctx.store.updateDuplicateRun(run.id, { status: 'running', startedAt: now() });
    const docs = new Map((await ctx.store.findDocuments(collection.id, {})).filter((doc) => doc.status === 'ready').map((doc) => [doc.id, doc]));
    const cache = new ProfileCache(ctx);
    let created = 0;
    let joined = 0;
    for (const pair of await verifiedPairs(ctx, collection, docs, cache)) {
      const placed = await placePair(ctx, collection, pair.left, pair.right, cache);
      if (placed === 'created') created++;
      if (placed === 'joined') joined++;
    }
    await ctx.store.countDuplicateJob(run.id);
    const counters = { duplicatesDetected: created + joined, duplicateGroupsCreated: created };
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
