import type { ConversionRunner, PageRenderer, PreparedDocument, PrepareInput } from '@dossier/core';
import { SMALL_ORIGINAL_BYTES } from '@dossier/core/internal';
import { ConversionBatcher } from './conversion-batcher.ts';
import type { ConvertBatchTask, ConvertReply, RenderPageTask } from './convert-worker.ts';
import { createTaskPool, type TaskPoolOptions } from './task-pool.ts';

/** Limits of the conversion pool (threads default 1, growing to maxThreads 2 while one conversion is slow). */
export type ConversionPoolOptions = TaskPoolOptions;

/**
 * A ConversionRunner backed by a piscina pool. A second thread starts once a conversion has run for a second (see
 * TaskGate), so one slow conversion (OCR of a scanned PDF) does not hold the small documents uploaded after it, and a
 * bulk upload of quick ones does not pay for a second thread's memory. Small originals go several to a task
 * (ConversionBatcher), one task in flight per kept thread; larger ones one to a task.
 */
export async function createConversionPool(
  opts: ConversionPoolOptions = {},
): Promise<{ run: ConversionRunner; renderPage: PageRenderer; threads(): number; close(): Promise<void> }> {
  type Rendered = Awaited<ReturnType<PageRenderer>>;
  type Replies = { replies: ConvertReply[] };
  const pool = await createTaskPool<PrepareInput | ConvertBatchTask | RenderPageTask, PreparedDocument | Replies | Rendered>(
    { worker: 'convert-worker', callerUrl: import.meta.url, label: 'Conversion' },
    { maxThreads: 2, ...opts },
  );
  const convertOne = async (input: PrepareInput) => (await pool.run(input)) as PreparedDocument;
  const batcher = new ConversionBatcher({ convertBatch: async (batch) => ((await pool.run({ batch })) as Replies).replies, convertOne }, opts.threads ?? 1);
  return {
    run: (input) => (input.bytes.length <= SMALL_ORIGINAL_BYTES ? batcher.convert(input) : convertOne(input)),
    // Page images share the conversion threads: drawing a page is as heavy as converting one, and never blocks the API.
    renderPage: async (input) => (await pool.run({ renderPage: input })) as Rendered,
    threads: pool.threads,
    close: pool.close,
  };
}
