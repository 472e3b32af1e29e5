import { DossierError } from '@dossier/core';
import { siblingWorkerUrl, workerOptions } from './worker-file.ts';

/** Limits of a worker pool: every task runs in a worker thread with a time and a memory limit. */
export interface TaskPoolOptions {
  /** Worker threads kept running (default 1). */
  threads?: number;
  /** Threads started when every running one is busy, stopped again when idle (default `threads`). */
  maxThreads?: number;
  /** Wall-clock limit per task (default 5 minutes). */
  timeoutMs?: number;
  /** V8 heap limit per worker in MB (default 1024). */
  maxMemoryMb?: number;
}

/** The document a pool thread converts or chunks as it starts, so that its parsers and tokenizer are set up then. */
export const WARM_UP_MARKDOWN = '# Warm-up\n\nA few words to tokenize.\n';

/** V8 young-generation size of a pool thread, in MB. */
const YOUNG_GENERATION_MB = 16;

/** A task's outcome as plain data (errors lose their fields across threads). */
export type TaskReply<T> = ({ ok: true } & T) | { ok: false; code: 'unsupported_format' | 'conversion_failed'; message: string };

interface Pool {
  run(task: unknown, opts?: { signal?: AbortSignal; transferList?: ArrayBuffer[] }): Promise<TaskReply<object>>;
  destroy(): Promise<void>;
}

/** What the pool's work is called in error messages ("Conversion", "Chunking"). */
interface TaskPoolSpec {
  worker: string;
  callerUrl: string;
  label: string;
}

/** Why a worker died, in words a user can act on. */
function workerFailure(err: unknown, timedOut: boolean, limits: Required<TaskPoolOptions>, label: string): DossierError {
  const text = String((err as Error)?.message ?? err);
  if (timedOut) return new DossierError('conversion_failed', `${label} took longer than ${Math.round(limits.timeoutMs / 1000)} s and was stopped`);
  if (/ERR_WORKER_OUT_OF_MEMORY|out of memory|heap/i.test(text) || (err as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new DossierError('conversion_failed', `${label} needed more than ${limits.maxMemoryMb} MB of memory and was stopped`);
  }
  return new DossierError('conversion_failed', `${label} crashed on this file`, { cause: err, retryable: false });
}

/**
 * A piscina pool running one worker module's default export; a stuck or exploding task takes down only its own
 * thread, and its caller gets a `conversion_failed` error that says which limit it passed.
 */
export async function createTaskPool<I, O extends object>(
  spec: TaskPoolSpec,
  opts: TaskPoolOptions = {},
): Promise<{ run: (input: I, transferList?: ArrayBuffer[]) => Promise<O>; close(): Promise<void> }> {
  const threads = opts.threads ?? 1;
  const limits = { threads, maxThreads: Math.max(threads, opts.maxThreads ?? threads), timeoutMs: opts.timeoutMs ?? 300_000, maxMemoryMb: opts.maxMemoryMb ?? 1024 };
  const { Piscina } = await import('piscina');
  const pool: Pool = new Piscina({
    ...workerOptions(siblingWorkerUrl(spec.worker, spec.callerUrl)),
    // Threads start with the pool and stay up: loading the workers' libraries takes seconds, so it happens at start.
    minThreads: limits.threads,
    maxThreads: limits.maxThreads,
    idleTimeout: 30_000,
    // A young generation of 16 MB (it was 64): the threads' parse garbage is short-lived, and the larger nursery cost
    // 50-60 MiB of peak RSS ingesting SciFact for at most a few per cent of speed, within this machine's noise (issue 11).
    resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  const run = async (input: I, transferList?: ArrayBuffer[]): Promise<O> => {
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, limits.timeoutMs);
    let reply: TaskReply<O>;
    try {
      reply = (await pool.run(input, { signal: abort.signal, transferList })) as TaskReply<O>;
    } catch (err) {
      throw workerFailure(err, timedOut, limits, spec.label);
    } finally {
      clearTimeout(timer);
    }
    if (!reply.ok) throw new DossierError(reply.code, reply.message);
    const { ok: _ok, ...out } = reply;
    return out as unknown as O;
  };
  return { run, close: () => pool.destroy() };
}
