import { extractDocumentClaims } from '../claims/extract.ts';
import type { ContextPart, DossierContext } from '../context.ts';
import type { Collection } from '../domain/types.ts';
import type { JobHandler } from '../jobs/runner.ts';
import type { Job } from '../ports/job-queue.ts';
import { captionDocument } from './captions.ts';
import { enrichRun, type EnrichRun, isRetryable } from './run.ts';
import { summarizeDocument } from './summaries.ts';

/**
 * Post-ready model jobs (DESIGN: "Post-ready jobs … never block `ready`"). The finalize step enqueues them after
 * the document is marked ready; they run only when the collection's flag is on and the project can reach a model
 * provider, both checked when the job runs. A failure never changes the document: a retryable one is retried by
 * the queue (with backoff, MAX_ATTEMPTS in all), then the job gives up with a log line.
 */
export const ENRICH_JOBS = { summaries: 'enrich.summaries', captions: 'enrich.captions', claims: 'enrich.claims' } as const;

export type EnrichKind = keyof typeof ENRICH_JOBS;

const MAX_ATTEMPTS = 3;

/** The collection flag that turns each job on. */
export const enrichEnabled: Record<EnrichKind, (c: Collection) => boolean> = {
  summaries: (c) => c.enableSummarization,
  captions: (c) => c.enableCaptioning,
  // Claims have no collection flag (spec: Collection): every ready document gets them when a provider is reachable.
  claims: () => true,
};

const WORK: Record<EnrichKind, (run: EnrichRun) => Promise<number>> = {
  summaries: summarizeDocument,
  captions: captionDocument,
  claims: extractDocumentClaims,
};

/** Queue one job. `dedupe` (the default) folds it into an unfinished job of the same document. */
export async function enqueueEnrich(ctx: ContextPart<'queue'>, kind: EnrichKind, documentId: string, dedupe = true): Promise<void> {
  const type = ENRICH_JOBS[kind];
  await ctx.queue.enqueue({ type, payload: { documentId }, maxAttempts: MAX_ATTEMPTS, ...(dedupe ? { dedupeKey: `${type}:${documentId}` } : {}) });
}

/**
 * After `ready`: queue the jobs whose flag is on, when the project can reach a model provider (each job would
 * otherwise be claimed only to find none: a job per document for nothing during a bulk ingestion). Never throws:
 * a queue failure is logged, the document stays ready.
 */
export async function enqueueAfterReady(ctx: ContextPart<'log' | 'models' | 'queue' | 'wakeWorkers'>, c: Collection, documentId: string): Promise<void> {
  try {
    const kinds = (Object.keys(ENRICH_JOBS) as EnrichKind[]).filter((k) => enrichEnabled[k](c));
    if (kinds.length === 0 || !(await ctx.models.hasProvider({ projectId: c.projectId, env: c.env }))) return;
    for (const kind of kinds) await enqueueEnrich(ctx, kind, documentId);
    ctx.wakeWorkers();
  } catch (err) {
    ctx.log.warn('could not enqueue post-ready jobs', { documentId, error: String(err) });
  }
}

async function runJob(ctx: DossierContext, kind: EnrichKind, job: Job, signal: AbortSignal): Promise<void> {
  const documentId = String(job.payload.documentId);
  try {
    const doc = await ctx.store.getDocument(documentId);
    const c = doc ? await ctx.store.getCollection(doc.collectionId) : null;
    // Deleted, re-ingesting (the next `ready` enqueues again) or switched off: nothing to do.
    if (!doc || !c || c.deletedAt || doc.status !== 'ready' || !enrichEnabled[kind](c)) return;
    if (!(await ctx.models.hasProvider({ projectId: c.projectId, env: c.env }))) return;
    const written = await WORK[kind](enrichRun(ctx, doc, c, signal));
    if (written > 0) ctx.log.info(`post-ready ${kind} written`, { documentId, count: written });
  } catch (err) {
    if (signal.aborted || (isRetryable(err) && job.attempts < job.maxAttempts)) throw err;
    ctx.log.warn(`post-ready ${kind} gave up`, { documentId, attempt: job.attempts, error: String(err) });
  }
}

/** Job handlers of the post-ready jobs, keyed by job type (merged with the pipeline's in createDossierCore). */
export function enrichHandlers(ctx: DossierContext): Record<string, JobHandler> {
  return Object.fromEntries(
    (Object.keys(ENRICH_JOBS) as EnrichKind[]).map((kind) => [
      ENRICH_JOBS[kind],
      (job: Job, { signal }: { signal: AbortSignal }) => runJob(ctx, kind, job, signal),
    ]),
  );
}
