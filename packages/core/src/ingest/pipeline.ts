import { type DossierContext, setDocumentStatus } from '../context.ts';
import { DossierError, isDossierError } from '../domain/errors.ts';
import type { Collection, DocumentRecord, DocumentStatus } from '../domain/types.ts';
import { enqueueDuplicateCheck } from '../duplicates/service.ts';
import { enqueueAfterReady } from '../enrich/jobs.ts';
import type { Job } from '../ports/job-queue.ts';
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
export async function enqueueIngest(ctx: DossierContext, documentId: string, step: Step = 'convert'): Promise<void> {
  const type = INGEST_JOBS[step];
  await ctx.queue.enqueue({ type, payload: { documentId }, dedupeKey: `${type}:${documentId}`, priority: PRIORITY[step] });
  ctx.wakeWorkers();
}

/** The statuses a step works from, the status it ends in, and what it does. */
interface StepSpec {
  from: DocumentStatus[];
  to: DocumentStatus;
  next: Step | null;
  /** `firstAttempt`: this job runs for the first time, so no earlier run of the step can have left rows. */
  run: (ctx: DossierContext, doc: DocumentRecord, c: Collection, firstAttempt: boolean) => Promise<Partial<DocumentRecord>>;
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

/** Run one step for the job's document; a crash at any point is repaired by re-running the job. */
async function runStep(ctx: DossierContext, step: Step, job: Job): Promise<void> {
  const spec = STEPS[step];
  let doc = await ctx.store.getDocument(String(job.payload.documentId));
  const c = doc ? await ctx.store.getCollection(doc.collectionId) : null;
  if (!doc || !c || c.deletedAt) return; // deleted meanwhile: nothing to do
  try {
    if (spec.from.includes(doc.status)) {
      if (doc.status === 'uploading') doc = await setDocumentStatus(ctx, doc, 'processing');
      const patch = await spec.run(ctx, doc, c, job.attempts === 1);
      if (!(await ctx.store.getDocument(doc.id))) return; // deleted while the step ran
      doc = await setDocumentStatus(ctx, doc, spec.to, patch);
    }
    if (doc.status === spec.to && spec.next) await enqueueIngest(ctx, doc.id, spec.next);
    if (step === 'finalize' && doc.status === 'ready') {
      await enqueueAfterReady(ctx, c, doc.id); // after `ready`, never blocking it
      await enqueueDuplicateCheck(ctx, c, doc.id);
    }
  } catch (err) {
    const final = !(err instanceof DossierError ? err.retryable || err.code === 'internal' : true) || job.attempts >= job.maxAttempts;
    ctx.log.warn('ingest step failed', { step, documentId: doc.id, attempt: job.attempts, final, error: String(err) });
    if (!final) throw err;
    await setDocumentStatus(ctx, doc, 'error', { errorMessage: failureMessage(step, err) });
  }
}

/** Job handlers of the pipeline, keyed by job type. */
export function ingestHandlers(ctx: DossierContext): Record<string, (job: Job) => Promise<void>> {
  return Object.fromEntries(
    (Object.keys(INGEST_JOBS) as Step[]).map((step) => [INGEST_JOBS[step], (job: Job) => runStep(ctx, step, job)]),
  );
}

