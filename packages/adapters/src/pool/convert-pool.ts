import { type ConversionRunner, DossierError } from '@dossier/core';
import type { ConvertReply } from './convert-worker.ts';
import { siblingWorkerUrl, workerOptions } from './worker-file.ts';

/** Limits of the conversion pool: every parser runs in a worker thread with a time and a memory limit. */
export interface ConversionPoolOptions {
  /** Worker threads (default 1). */
  threads?: number;
  /** Wall-clock limit per document (default 5 minutes). */
  timeoutMs?: number;
  /** V8 heap limit per worker in MB (default 1024). */
  maxMemoryMb?: number;
}

interface Pool {
  run(task: unknown, opts?: { signal?: AbortSignal; transferList?: ArrayBuffer[] }): Promise<ConvertReply>;
  destroy(): Promise<void>;
}

/** Why a worker died, in words a user can act on. */
function workerFailure(err: unknown, timedOut: boolean, limits: Required<ConversionPoolOptions>): DossierError {
  const text = String((err as Error)?.message ?? err);
  if (timedOut) return new DossierError('conversion_failed', `Conversion took longer than ${Math.round(limits.timeoutMs / 1000)} s and was stopped`);
  if (/ERR_WORKER_OUT_OF_MEMORY|out of memory|heap/i.test(text) || (err as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new DossierError('conversion_failed', `Conversion needed more than ${limits.maxMemoryMb} MB of memory and was stopped`);
  }
  return new DossierError('conversion_failed', 'The converter crashed on this file', { cause: err, retryable: false });
}

/** A ConversionRunner backed by a piscina pool; a stuck or exploding parser takes down only its own thread. */
export async function createConversionPool(opts: ConversionPoolOptions = {}): Promise<{ run: ConversionRunner; close(): Promise<void> }> {
  const limits = { threads: opts.threads ?? 1, timeoutMs: opts.timeoutMs ?? 300_000, maxMemoryMb: opts.maxMemoryMb ?? 1024 };
  const { Piscina } = await import('piscina');
  const pool: Pool = new Piscina({
    ...workerOptions(siblingWorkerUrl('convert-worker', import.meta.url)),
    // Threads start with the pool and stay up: loading the converters takes seconds, so it happens at start, not on the first upload.
    minThreads: limits.threads,
    maxThreads: limits.threads,
    resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb, maxYoungGenerationSizeMb: 64 },
  });
  const run: ConversionRunner = async (input) => {
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, limits.timeoutMs);
    let reply: ConvertReply;
    try {
      reply = await pool.run(input, { signal: abort.signal });
    } catch (err) {
      throw workerFailure(err, timedOut, limits);
    } finally {
      clearTimeout(timer);
    }
    if (!reply.ok) throw new DossierError(reply.code, reply.message);
    const { ok: _ok, ...prepared } = reply;
    return prepared;
  };
  return { run, close: () => pool.destroy() };
}
