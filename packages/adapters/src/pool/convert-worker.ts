import { isDossierError, type PreparedDocument, type PrepareInput, prepareDocument } from '@dossier/core/conversion';
import { createConverterRegistry } from '../converters/index.ts';
import { renderPdfPage } from '../converters/pdf/page-image.ts';
import { lowerThisThreadsPriority } from './lower-priority.ts';
import { type TaskReply, WARM_UP_MARKDOWN } from './worker-protocol.ts';

lowerThisThreadsPriority();

/** What the worker sends back: the prepared document, or the error as plain data (errors lose fields across threads). */
export type ConvertReply = TaskReply<PreparedDocument>;

/** A page of a PDF to draw (the same threads draw page images, so they never run on the event loop). */
export interface RenderPageTask {
  renderPage: { bytes: Uint8Array; page: number; maxWidth: number };
}
export type RenderPageReply = TaskReply<{ png: Uint8Array; width: number; height: number }>;

/** Draw one page, with the error as plain data. */
async function drawPage(task: RenderPageTask): Promise<RenderPageReply> {
  try {
    return { ok: true, ...(await renderPdfPage(task.renderPage)) };
  } catch (err) {
    if (isDossierError(err, 'not_found')) return { ok: false, code: 'not_found', message: err.message };
    if (isDossierError(err, 'conversion_failed')) return { ok: false, code: 'conversion_failed', message: err.message };
    return { ok: false, code: 'conversion_failed', message: `The page could not be drawn (${String((err as Error)?.message ?? err).slice(0, 200)})` };
  }
}

const registry = createConverterRegistry();

/**
 * One tiny Markdown document converted, sectioned and chunked while the thread starts (piscina loads this module before
 * the thread takes work): the tokenizer and the parsers' first-use set-up (a third of a second on a busy machine) are
 * paid then, not by the first document uploaded. Not awaited: a top-level await makes the module async, which the
 * loader of a TypeScript worker (tests, tsx) cannot require; the work is synchronous past the Markdown conversion, so
 * it is done within the module's load either way.
 */
prepareDocument(registry, {
  bytes: new TextEncoder().encode(WARM_UP_MARKDOWN),
  filename: 'warm-up.md',
  documentId: 'warm-up',
  chunking: { chunkSize: 64, chunkOverlap: 8, maxBytes: 1024 },
}).catch(() => {}); // a failed warm-up costs only the first document the set-up

/** Small documents sent in one task (see ConversionBatcher): each converted in turn, each with its own reply. */
export interface ConvertBatchTask {
  batch: PrepareInput[];
}
export type ConvertBatchReply = TaskReply<{ replies: ConvertReply[] }>;

/** Convert and section one document inside a worker thread, or a batch of small ones in turn (or draw a page of one). */
export default async function convert(input: PrepareInput | ConvertBatchTask | RenderPageTask): Promise<ConvertReply | ConvertBatchReply | RenderPageReply> {
  if ('renderPage' in input) return drawPage(input);
  if ('batch' in input) {
    const replies: ConvertReply[] = [];
    for (const one of input.batch) replies.push(await convertOne(one));
    return { ok: true, replies };
  }
  return convertOne(input);
}

/** One document converted, sectioned and (when small) chunked, with the error as plain data. */
async function convertOne(input: PrepareInput): Promise<ConvertReply> {
  try {
    return { ok: true, ...(await prepareDocument(registry, input)) };
  } catch (err) {
    if (isDossierError(err, 'unsupported_format')) return { ok: false, code: 'unsupported_format', message: err.message };
    if (isDossierError(err, 'conversion_failed')) return { ok: false, code: 'conversion_failed', message: err.message };
    return {
      ok: false,
      code: 'conversion_failed',
      message: `The file could not be converted (${(err as Error)?.name ?? 'error'}: ${String((err as Error)?.message ?? err).slice(0, 200)})`,
    };
  }
}
