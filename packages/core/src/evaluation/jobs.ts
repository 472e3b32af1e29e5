import type { SectionStore } from '../ports/section-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import type { UsageStore } from '../ports/research-store.ts';
import type { WebhookStore } from '../ports/webhook-store.ts';
import type { EvaluationStore } from '../ports/evaluation-store.ts';
import type { ContextPart } from '../context.ts';
import { invalid, isDossierError, notFound } from '../domain/errors.ts';
import type { Collection } from '../domain/types.ts';
import { serviceEvent } from '../events/catalogue.ts';
import type { EvaluationRunRecord } from '../ports/evaluation-store.ts';
import type { Job } from '../ports/job-queue.ts';
import type { RetrievalSettings } from '../search/query.ts';
import { meterUsage } from '../usage/meter.ts';
import type { RunMetrics } from './metrics.ts';
import type { EvaluationProgress } from './run-state.ts';
import { runGoldenSet } from './runner.ts';
import { dropShadow, withShadowCollection } from './shadow.ts';

/** The job that builds a run's shadow copy, runs its set there, stores the figures and drops the copy (issue 38). */
export const EVALUATION_SHADOW_JOB = 'evaluation.shadow';

/** Queue a `running` run that needs a shadow copy; a crashed attempt is tried once more (see runShadowJob). */
export async function enqueueShadowRun(ctx: ContextPart<'queue' | 'wakeWorkers'>, run: EvaluationRunRecord): Promise<void> {
  await ctx.queue.enqueue({ type: EVALUATION_SHADOW_JOB, payload: { runId: run.id }, maxAttempts: 2, dedupeKey: `${EVALUATION_SHADOW_JOB}:${run.id}` });
  ctx.wakeWorkers();
}

/** Job handlers of evaluation runs, keyed by job type. */
export function evaluationHandlers(
  ctx: ContextPart<
    'blobs' | 'chunk' | 'embedders' | 'eventsRecorded' | 'index' | 'log' | 'reranker',
    EvaluationStore & CollectionStore & SectionStore & DocumentStore & UsageStore & WebhookStore
  >,
  server: RetrievalSettings,
): Record<string, (job: Job) => Promise<void>> {
  return { [EVALUATION_SHADOW_JOB]: (job) => runShadowJob(ctx, server, job) };
}

/** Progress writes at most this often (a run of thousands of queries writes a handful of rows, not thousands). */
const PROGRESS_EVERY_MS = 500;

function progressWriter(store: EvaluationStore, runId: string, stage: EvaluationProgress['stage']) {
  let last = 0;
  return async (done: number, total: number) => {
    if (done < total && Date.now() - last < PROGRESS_EVERY_MS) return;
    last = Date.now();
    await store.updateEvaluationRun(runId, { progress: { stage, done, total } });
  };
}

/** How a queued run ended: its figures, or why it failed. */
type Outcome = { metrics: RunMetrics; perQuery: EvaluationRunRecord['perQuery'] } | { error: string };

/** Record that a queued run ended: its figures or its error, no shadow table left, and the `evaluation.completed` event. */
async function finishRun(
  ctx: ContextPart<'eventsRecorded', EvaluationStore & UsageStore & WebhookStore>,
  run: EvaluationRunRecord,
  c: Collection | null,
  outcome: Outcome,
): Promise<void> {
  const done =
    'error' in outcome
      ? { status: 'failed' as const, error: outcome.error, progress: null, shadowIndex: null }
      : { status: 'completed' as const, metrics: outcome.metrics, perQuery: outcome.perQuery, progress: null, shadowIndex: null };
  await ctx.store.updateEvaluationRun(run.id, done);
  if (!c) return;
  const sandbox = { projectId: c.projectId, env: c.env };
  if (!('error' in outcome)) await meterUsage(ctx.store, sandbox, 'queries', outcome.perQuery.length);
  await ctx.store.recordEvents([
    serviceEvent('evaluation.completed', sandbox, {
      runId: run.id,
      collectionId: c.id,
      projectId: c.projectId,
      setId: run.setId,
      setVersion: run.setVersion,
      status: done.status,
      ndcg10: 'error' in outcome ? null : outcome.metrics.ndcg10,
      error: 'error' in outcome ? outcome.error : null,
    }),
  ]);
  ctx.eventsRecorded();
}

/**
 * Build the shadow copy of a `running` run, run its set there and store the figures; the copy is dropped in every
 * case. A shadow table named on the run before this attempt is left from an attempt that crashed: it is dropped first.
 */
async function runShadowJob(
  ctx: ContextPart<
    'blobs' | 'chunk' | 'embedders' | 'eventsRecorded' | 'index' | 'log' | 'reranker',
    EvaluationStore & CollectionStore & SectionStore & DocumentStore & UsageStore & WebhookStore
  >,
  server: RetrievalSettings,
  job: Job,
): Promise<void> {
  const run = await ctx.store.getEvaluationRun(String(job.payload.runId));
  if (run?.status !== 'running') return;
  if (run.shadowIndex) await dropShadow(ctx, run.shadowIndex);
  const c = await ctx.store.getCollection(run.collectionId);
  try {
    if (!c || c.deletedAt) throw notFound('Collection');
    const set = await ctx.store.getGoldenSet(run.setId, run.setVersion);
    if (!set) throw notFound(`Golden set version ${run.setVersion}`);
    const { chunkSize, chunkOverlap, embeddingModel } = run.settings;
    if (chunkSize === undefined || chunkOverlap === undefined || embeddingModel === undefined)
      throw invalid('The run does not name the chunking and model to try');
    const searching = progressWriter(ctx.store, run.id, 'searching');
    const hooks = {
      onTable: (shadowIndex: string) => ctx.store.updateEvaluationRun(run.id, { shadowIndex }),
      onIndexed: progressWriter(ctx.store, run.id, 'indexing'),
    };
    const search = (shadow: Collection) => runGoldenSet(ctx, shadow, set, run.settings, server, searching);
    const result = await withShadowCollection(ctx, c, { chunkSize, chunkOverlap, embeddingModel }, search, hooks);
    await finishRun(ctx, run, c, result);
    ctx.log.info('evaluation run completed', { runId: run.id, collectionId: run.collectionId, ndcg10: result.metrics.ndcg10 });
  } catch (err) {
    const message = isDossierError(err) ? err.message : 'Internal error while evaluating on a shadow copy';
    await finishRun(ctx, run, c, { error: message });
    ctx.log.warn('evaluation run failed', { runId: run.id, error: String(err) });
  }
}

/** A run whose job was given up (its last attempt's process stopped): drop its shadow table and mark it failed. */
export async function failAbandonedEvaluation(
  ctx: ContextPart<'eventsRecorded' | 'index' | 'log', EvaluationStore & UsageStore & WebhookStore & CollectionStore>,
  job: Job,
): Promise<void> {
  if (job.type !== EVALUATION_SHADOW_JOB) return;
  const run = await ctx.store.getEvaluationRun(String(job.payload.runId));
  if (run?.status !== 'running') return;
  if (run.shadowIndex) await dropShadow(ctx, run.shadowIndex);
  await finishRun(ctx, run, await ctx.store.getCollection(run.collectionId), { error: 'The run was interrupted (the server stopped while it ran)' });
}
