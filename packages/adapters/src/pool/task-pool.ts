import { DossierError } from '@dossier/core';
import { TaskGate } from './task-gate.ts';
import type { TaskReply } from './worker-protocol.ts';
import { siblingWorkerUrl, workerOptions } from './worker-file.ts';

/** Limits of a worker pool: every task runs in a worker thread with a time and a memory limit. */
export interface TaskPoolOptions {
  /** Worker threads kept running (default 1). */
  threads?: number;
  /**
   * Threads started while a running task has taken longer than `spareAfterMs`, stopped again when idle (default
   * `threads`: no spare).
   */
  maxThreads?: number;
  /** How long a task runs before the task behind it may take a spare thread (default 1 s). */
  spareAfterMs?: number;
  /** Wall-clock limit per task (default 5 minutes). */
  timeoutMs?: number;
  /** V8 heap limit per worker in MB (default 1024). */
  maxMemoryMb?: number;
}

/** V8 young-generation size of a pool thread, in MB. */
const YOUNG_GENERATION_MB = 16;

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
  const limits = {
    threads,
    maxThreads: Math.max(threads, opts.maxThreads ?? threads),
    spareAfterMs: opts.spareAfterMs ?? 1_000,
    timeoutMs: opts.timeoutMs ?? 300_000,
    maxMemoryMb: opts.maxMemoryMb ?? 1024,
  };
  const gate = new TaskGate(limits.threads, limits.maxThreads, limits.spareAfterMs);
  // The pool (and its threads, which load the converters or the tokenizer) starts with the first task, not with the
  // process: an embedded library that opens a data directory to search never pays for it (issue 41: cold start).
  let started: Promise<Pool> | null = null;
  const pool = () => (started ??= startPool(spec, limits));
  const run = async (input: I, transferList?: ArrayBuffer[]): Promise<O> => {
    const ticket = await gate.enter();
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, limits.timeoutMs);
    let reply: TaskReply<O>;
    try {
      reply = (await (await pool()).run(input, { signal: abort.signal, transferList })) as TaskReply<O>;
    } catch (err) {
      throw workerFailure(err, timedOut, limits, spec.label);
    } finally {
      clearTimeout(timer);
      gate.leave(ticket);
    }
    if (!reply.ok) throw new DossierError(reply.code, reply.message);
    const { ok: _ok, ...out } = reply;
    return out as unknown as O;
  };
  return { run, close: async () => void (started && (await started).destroy()) };
}

/** The piscina pool of one worker module; its threads stay up once started. */
async function startPool(spec: TaskPoolSpec, limits: Required<TaskPoolOptions>): Promise<Pool> {
  const { Piscina } = await import('piscina');
  return new Piscina({
    ...workerOptions(siblingWorkerUrl(spec.worker, spec.callerUrl)),
    // Threads start with the pool and stay up: loading the workers' libraries takes seconds, paid once by the first task.
    minThreads: limits.threads,
    maxThreads: limits.maxThreads,
    idleTimeout: 30_000,
    // A young generation of 16 MB (it was 64): the threads' parse garbage is short-lived, and the larger nursery cost
    // 50-60 MiB of peak RSS ingesting SciFact for at most a few per cent of speed, within this machine's noise (issue 11).
    resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
}
