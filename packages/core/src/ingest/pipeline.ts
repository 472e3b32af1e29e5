import { type ContextPart, type DossierContext, publishDocumentStatus, setDocumentStatus } from '../context.ts';
import { DossierError, isDossierError } from '../domain/errors.ts';
import type { Collection, DocumentRecord, DocumentStatus } from '../domain/types.ts';
import { enqueueDuplicateCheck } from '../duplicates/service.ts';
import { enqueueAfterReady } from '../enrich/jobs.ts';
import type { Job } from '../ports/job-queue.ts';
import type { StepCarry } from './carry.ts';
import { embedAndIndex } from './embed-step.ts';
import { convertAndSection } from './convert-step.ts';

/** Queue job types of the ingestion pipeline, in order. */
export const INGEST_JOBS = {
  convert: 'ingest.convert',
  embed: 'ingest.embed',
  finalize: 'ingest.finalize',
} as const;

type Step = keyof typeof INGEST_JOBS;

/**
 * Later steps are claimed first, so that a large upload finishes documents one after another (the first is
 * ready in seconds, and few are held half-done) instead of converting everything before indexing anything.
 * Post-ready jobs keep the default priority 0, after all ingestion.
 */
const PRIORITY: Record<Step, number> = { convert: 10, embed: 20, finalize: 30 };

/** Put a document's pipeline step (by default the first) on the queue. */
export async function enqueueIngest(ctx: ContextPart<'queue' | 'wakeWorkers'>, documentId: string, step: Step = 'convert'): Promise<void> {
  const type = INGEST_JOBS[step];
  await ctx.queue.enqueue({ type, payload: { documentId }, dedupeKey: `${type}:${documentId}`, priority: PRIORITY[step] });
  ctx.wakeWorkers();
}

/** The statuses a step works from, the status it ends in, and what it does; `next` runs after it in the same job. */
interface StepSpec {
  from: DocumentStatus[];
  to: DocumentStatus;
  next: Step | null;
  /**
   * `firstAttempt`: this job runs for the first time, so no earlier run of the step can have left rows. `carry`: what
   * the previous step of this job left in memory for this one.
   */
  run: (ctx: DossierContext, doc: DocumentRecord, c: Collection, firstAttempt: boolean, carry: StepCarry) => Promise<Partial<DocumentRecord>>;
}

const STEPS: Record<Step, StepSpec> = {
  convert: { from: ['uploading', 'processing'], to: 'sectioned', next: 'embed', run: convertAndSection },
  embed: { from: ['sectioned'], to: 'embedded', next: 'finalize', run: embedAndIndex },
  finalize: {
    from: ['embedded'],
    to: 'ready',
    next: null,
    run: async (ctx, _doc, c) => {
      await ctx.index.refresh(c.id); // a ready document must be searchable (DESIGN: Ports)
      return {};
    },
  },
};

/** A client-safe message for a failed step; internal details go to the log only. */
function failureMessage(step: Step, err: unknown): string {
  if (isDossierError(err) && err.code !== 'internal') return err.message;
  return `Processing failed during ${step} (internal error); retry the document`;
}

/**
 * Run the job's step and then the steps after it in the same job, each status change saved as it happens. One job
 * per document instead of three saves two enqueues, claims and completions and two document and collection reads
 * per document (issue 11), and still finishes documents one after another. A crash at any point is repaired by
 * re-running the job: a step whose document is already past it is skipped, and the next one goes on from there.
 * The embed and finalize job types keep their handlers for documents queued by earlier versions.
 */
async function runStep(ctx: DossierContext, first: Step, job: Job, signal?: AbortSignal): Promise<void> {
  let doc = await ctx.store.getDocument(String(job.payload.documentId));
  const c = doc ? await ctx.store.getCollection(doc.collectionId) : null;
  if (!doc || !c || c.deletedAt) return; // deleted meanwhile: nothing to do
  // An earlier attempt may have saved a status and stopped before publishing it (a killed worker's `ready`, say).
  if (job.attempts > 1) await publishDocumentStatus(ctx, doc);
  // Rows may be appended without a merge only while every step so far ran on this job's first attempt.
  let fresh = job.attempts === 1;
  const carry: StepCarry = {};
  for (let step: Step | null = first; step; step = STEPS[step].next) {
    // The lease was lost (another worker runs the job now): stop before the next step writes anything.
    if (signal?.aborted) return;
    const before: DocumentRecord = doc;
    try {
      // A document already past this step (a re-run after a crash) goes on with the next one.
      const ran = STEPS[step].from.includes(before.status);
      fresh &&= ran;
      const after = ran ? await runOne(ctx, step, before, c, fresh, carry) : before;
      if (!after) return; // deleted while the step ran
      doc = after;
      if (step === 'finalize' && doc.status === 'ready') await afterReady(ctx, c, doc.id); // at least once, deduplicated
    } catch (err) {
      const final = !(err instanceof DossierError ? err.retryable || err.code === 'internal' : true) || job.attempts >= job.maxAttempts;
      ctx.log.warn('ingest step failed', { step, documentId: before.id, attempt: job.attempts, final, error: String(err) });
      if (!final) throw err;
      await setDocumentStatus(ctx, before, 'error', { errorMessage: failureMessage(step, err) }, c);
      return;
    }
  }
}

/** One step: the status it works from, what it does, the status it ends in; null when the document was deleted meanwhile. */
async function runOne(ctx: DossierContext, step: Step, doc: DocumentRecord, c: Collection, fresh: boolean, carry: StepCarry): Promise<DocumentRecord | null> {
  try {
    const current = doc.status === 'uploading' ? await setDocumentStatus(ctx, doc, 'processing', {}, c) : doc;
    const patch = await STEPS[step].run(ctx, current, c, fresh, carry);
    return await setDocumentStatus(ctx, current, STEPS[step].to, patch, c);
  } catch (err) {
    // The status update found no row: the document was deleted while the step ran.
    if (isDossierError(err, 'not_found') && !(await ctx.store.getDocument(doc.id))) return null;
    throw err;
  }
}

/** Work queued once a document is ready, never blocking it. */
async function afterReady(ctx: ContextPart<'log' | 'models' | 'queue' | 'wakeWorkers'>, c: Collection, documentId: string): Promise<void> {
  await enqueueAfterReady(ctx, c, documentId);
  await enqueueDuplicateCheck(ctx, c, documentId);
}

const INGEST_JOB_TYPES = new Set<string>(Object.values(INGEST_JOBS));

/**
 * The job queue gave up on a document's ingestion job without running it: every attempt's worker stopped (crashed,
 * was killed, ran out of memory) before finishing. The document goes to `error` with a message saying so, instead
 * of staying half-processed for ever; a document that keeps killing its worker is the likely cause.
 */
export async function failAbandonedIngest(ctx: DossierContext, job: Job): Promise<void> {
  if (!INGEST_JOB_TYPES.has(job.type)) return;
  const doc = await ctx.store.getDocument(String(job.payload.documentId));
  const c = doc ? await ctx.store.getCollection(doc.collectionId) : null;
  if (!doc || !c || c.deletedAt || doc.status === 'ready' || doc.status === 'error') return;
  ctx.log.warn('ingestion abandoned', { documentId: doc.id, attempts: job.maxAttempts });
  const errorMessage = `Processing stopped before it finished on all ${job.maxAttempts} attempts (the worker running it crashed or was stopped); retry the document`;
  await setDocumentStatus(ctx, doc, 'error', { errorMessage }, c);
}

/** Job handlers of the pipeline, keyed by job type. */
export function ingestHandlers(ctx: DossierContext): Record<string, (job: Job, run?: { signal: AbortSignal }) => Promise<void>> {
  return Object.fromEntries(
    (Object.keys(INGEST_JOBS) as Step[]).map((step) => [INGEST_JOBS[step], (job: Job, run?: { signal: AbortSignal }) => runStep(ctx, step, job, run?.signal)]),
  );
}
