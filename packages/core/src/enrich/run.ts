import type { DossierContext } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import type { ModelResolver, ResolvedModel } from '../models/types.ts';
import type { ChatMessage } from '../ports/model-provider.ts';
import { cleanAnswer, MAX_OUTPUT_TOKENS } from './prompts.ts';

/** Longest one summary or caption call may take before it is abandoned (and the job retried). */
export const MODEL_CALL_TIMEOUT_MS = 120_000;

/** One post-ready job on one document: what it works on and how it reaches the model. */
export interface EnrichRun {
  ctx: DossierContext;
  doc: DocumentRecord;
  collection: Collection;
  signal: AbortSignal;
  /** The collection's llmModel (or the fast default), resolved on first use: a document with nothing to do costs nothing. */
  model(): Promise<ResolvedModel>;
  /** The document as it is now when it is still ready, else null (a re-ingest started: stop writing). */
  current(): Promise<DocumentRecord | null>;
}

/** Build the run of a job over a ready document of a live collection. */
export function enrichRun(ctx: DossierContext, doc: DocumentRecord, collection: Collection, signal: AbortSignal): EnrichRun {
  const access: Parameters<ModelResolver['resolve']>[0] = { projectId: collection.projectId, env: collection.env };
  let resolved: Promise<ResolvedModel> | null = null;
  return {
    ctx,
    doc,
    collection,
    signal,
    model: () => (resolved ??= ctx.models.resolve(access, collection.llmModel, 'fast')),
    async current() {
      const now = await ctx.store.getDocument(doc.id);
      return now?.status === 'ready' ? now : null;
    },
  };
}

/** One bounded model call; returns the cleaned answer ('' when the model gave none). */
export async function ask(run: EnrichRun, messages: ChatMessage[]): Promise<string> {
  const m = await run.model();
  const signal = AbortSignal.any([run.signal, AbortSignal.timeout(MODEL_CALL_TIMEOUT_MS)]);
  const result = await m.provider.chat({ model: m.model, messages, maxTokens: MAX_OUTPUT_TOKENS, temperature: 0.2, signal });
  return cleanAnswer(result.text);
}

/** Whether a failure may go away on a later attempt (provider overload, timeouts, I/O); unknown errors may. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof DossierError) return err.retryable || ['rate_limited', 'unavailable', 'timeout', 'internal'].includes(err.code);
  return true;
}
