import type { DocumentStore } from '../ports/document-store.ts';
import type { ClaimStore } from '../ports/claim-store.ts';
import { type ContextPart, type DossierContext, eventsSaved } from '../context.ts';
import type { ContradictionRunRecord } from '../domain/claims.ts';
import { isDossierError } from '../domain/errors.ts';
import type { Collection } from '../domain/types.ts';
import { type ServiceEvent, serviceEvent } from '../events/catalogue.ts';
import type { Job } from '../ports/job-queue.ts';
import { DEFAULT_GROUPING, groupClaims } from './grouping.ts';
import { type JudgedClaim, judgeGroup } from './judge.ts';
import { embedClaims } from './map.ts';

/** Queue job type of a contradiction run. */
export const CONTRADICTION_JOB = 'claims.contradictions';
/** Judge calls in flight at once within one run. */
const JUDGE_CONCURRENCY = 4;

/** Claims of the collection's ready, canonical documents (non-canonical duplicates never take part). */
export async function judgeableClaims(store: DocumentStore & ClaimStore, collection: Collection): Promise<JudgedClaim[]> {
  const documents = new Map(
    (await store.findDocuments(collection.id, {})).filter((doc) => doc.status === 'ready' && doc.canonical).map((doc) => [doc.id, doc]),
  );
  return (await store.listCollectionClaims(collection.id)).flatMap((claim) => {
    const doc = documents.get(claim.documentId);
    return doc ? [{ claim, documentName: doc.filename, metadata: doc.metadata as Record<string, unknown> }] : [];
  });
}

/** Run `work` over items with at most `limit` at once. */
async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Group, judge and store; returns the run's counters. */
async function detect(
  ctx: ContextPart<'embedders' | 'models', ClaimStore & DocumentStore>,
  collection: Collection,
  run: ContradictionRunRecord,
  signal: AbortSignal,
): Promise<Partial<ContradictionRunRecord>> {
  const model = await ctx.models.resolve({ projectId: collection.projectId, env: collection.env }, collection.llmModel, 'fast');
  await ctx.store.updateContradictionRun(run.id, { model: model.modelId });
  const claims = await judgeableClaims(ctx.store, collection);
  const rules = { suppressIntraDocument: collection.suppressIntraDocumentContradictions, suppressByMetadata: collection.suppressContradictionsByMetadata };
  // The collection's embeddings sharpen the lexical similarity when it has a model (claims/grouping.ts).
  const dense = await embedClaims(
    ctx,
    collection,
    claims.map((entry) => entry.claim.text),
    () => {},
  );
  const groups = await groupClaims(
    claims.map((entry) => ({ text: entry.claim.text, documentId: entry.claim.documentId })),
    { ...DEFAULT_GROUPING, crossDocumentOnly: rules.suppressIntraDocument },
    dense ?? undefined,
  );
  let found = 0;
  await forEachLimited(groups, JUDGE_CONCURRENCY, async (group) => {
    const verdicts = await judgeGroup(
      model,
      group.map((index) => claims[index]!),
      rules,
      signal,
    );
    found += await ctx.store.insertContradictions(verdicts);
  });
  return { claimsProcessed: claims.length, clustersAnalyzed: groups.length, contradictionsFound: found };
}

/** The `contradictions.completed` event of a run that ended (error null when it completed). */
const runEvent = (collection: Collection, runId: string, found: number | null, error: string | null): ServiceEvent =>
  serviceEvent('contradictions.completed', collection, {
    runId,
    collectionId: collection.id,
    projectId: collection.projectId,
    status: error === null ? 'completed' : 'failed',
    contradictionsFound: found,
    error,
  });

/**
 * The contradiction run job: `enqueued → running → completed | failed`. Candidates come from grouping similar
 * claims (claims/grouping.ts), one judge call per group; contradictions found before are not stored again
 * (fingerprint), so dismissed ones stay dismissed. A failure ends the run `failed` with a message; the job is
 * not retried by the queue (the user starts a new run).
 */
export async function runContradictionJob(ctx: DossierContext, job: Job, signal: AbortSignal): Promise<void> {
  const run = await ctx.store.latestContradictionRun(String(job.payload.collectionId));
  if (!run || run.id !== job.payload.runId || run.status === 'completed' || run.status === 'failed') return;
  const collection = await ctx.store.getCollection(run.collectionId);
  if (!collection || collection.deletedAt) {
    await ctx.store.updateContradictionRun(run.id, { status: 'failed', error: 'The collection was deleted', completedAt: new Date().toISOString() });
    return;
  }
  await ctx.store.updateContradictionRun(run.id, { status: 'running', startedAt: new Date().toISOString() });
  try {
    const counters = await detect(ctx, collection, run, signal);
    const completed = [runEvent(collection, run.id, counters.contradictionsFound ?? null, null)];
    await ctx.store.updateContradictionRun(run.id, { ...counters, status: 'completed', completedAt: new Date().toISOString() }, completed);
    eventsSaved(ctx, completed);
    ctx.log.info('contradiction run completed', { runId: run.id, collectionId: collection.id, ...counters });
  } catch (err) {
    if (signal.aborted) throw err; // shutdown: the lease expires and the run resumes on another worker
    // A DossierError's message is safe to show; anything else stays in the log.
    const message = isDossierError(err) ? err.message : 'Internal error while detecting contradictions';
    const failed = [runEvent(collection, run.id, null, message)];
    await ctx.store.updateContradictionRun(run.id, { status: 'failed', error: message, completedAt: new Date().toISOString() }, failed);
    eventsSaved(ctx, failed);
    ctx.log.warn('contradiction run failed', { runId: run.id, collectionId: collection.id, error: String(err) });
  }
}
