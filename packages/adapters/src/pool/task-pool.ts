import { DossierError } from '@dossier/core';
import { TaskGate } from './task-gate.ts';
import type { TaskReply } from './worker-protocol.ts';
import { siblingWorkerUrl, workerOptions } from './worker-file.ts';

/** Limits of a worker pool: every task runs in a worker thread with a time and a memory limit. */
export interface TaskPoolOptions {
  /** Threads that tasks run on at once (default 1); the pool starts them with the tasks and stops them when idle. */
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
  /** How long a thread stays up with no task before it stops; the pool shrinks to no thread at all (default 30 s). */
  idleMs?: number;
}

/** V8 young-generation size of a pool thread, in MB. */
const YOUNG_GENERATION_MB = 16;

interface Pool {
  run(task: unknown, opts?: { signal?: AbortSignal; transferList?: ArrayBuffer[] }): Promise<TaskReply<object>>;
  destroy(): Promise<void>;
  on(event: 'workerCreate' | 'workerDestroy', listener: (thread: { id: number }) => void): void;
}

/** A worker pool: run a task in a thread; how many threads are up now; stop them all. */
export interface TaskPool<I, O> {
  run(input: I, transferList?: ArrayBuffer[]): Promise<O>;
  /** Threads started and not yet stopped (0 until the first task, and again once the pool has been idle `idleMs`). */
  threads(): number;
  close(): Promise<void>;
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
export async function createTaskPool<I, O extends object>(spec: TaskPoolSpec, opts: TaskPoolOptions = {}): Promise<TaskPool<I, O>> {
  const threads = opts.threads ?? 1;
  const limits = {
    threads,
    maxThreads: Math.max(threads, opts.maxThreads ?? threads),
    spareAfterMs: opts.spareAfterMs ?? 1_000,
    timeoutMs: opts.timeoutMs ?? 300_000,
    maxMemoryMb: opts.maxMemoryMb ?? 1024,
    idleMs: opts.idleMs ?? 30_000,
  };
  const gate = new TaskGate(limits.threads, limits.maxThreads, limits.spareAfterMs);
  gate.chill(); // no thread yet
  // The pool (and its threads, which load the converters or the tokenizer) starts with the first task, not with the
  // process: an embedded library that opens a data directory to search never pays for it (issue 41: cold start).
  let started: Promise<Pool> | null = null;
  /** Thread ids of the threads up (piscina hands out a new view of a thread with each event: its id is the key). */
  const threadsUp = new Set<number>();
  const pool = () =>
    (started ??= startPool(spec, limits).then((p) => {
      // Piscina announces a thread once its module is loaded (it was started on demand), and again when it stops.
      p.on('workerCreate', (thread) => threadsUp.add(thread.id).size === 1 && gate.warm());
      p.on('workerDestroy', (thread) => threadsUp.delete(thread.id) && threadsUp.size === 0 && gate.chill());
      return p;
    }));
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
  return { run, threads: () => threadsUp.size, close: async () => void (started && (await started).destroy()) };
}

/** The piscina pool of one worker module; its threads start with the tasks that need them and stop when idle. */
async function startPool(spec: TaskPoolSpec, limits: Required<TaskPoolOptions>): Promise<Pool> {
  const { Piscina } = await import('piscina');
  return new Piscina({
    ...workerOptions(siblingWorkerUrl(spec.worker, spec.callerUrl)),
    // No thread is kept: one that has had no task for idleMs stops, so a process that ingested once and now only
    // searches gives back each thread's 50-60 MiB (issue 41). Loading the libraries again costs the next task a second.
    minThreads: 0,
    maxThreads: limits.maxThreads,
    idleTimeout: limits.idleMs,
    // A young generation of 16 MB (it was 64): the threads' parse garbage is short-lived, and the larger nursery cost
    // 50-60 MiB of peak RSS ingesting SciFact for at most a few per cent of speed, within this machine's noise (issue 11).
    resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
}
