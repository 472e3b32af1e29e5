import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Job, JobQueue } from '@dossier/core';
import { createJobRunner, type JobRunner, type JobRunnerOptions, retryDelayMs } from '@dossier/core/internal';
import { jobQueueSuite, waitFor } from '@dossier/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteJobQueue, type SqliteJobQueue } from '../src/sqlite/job-queue.ts';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Everything a test opened, released after it whatever the outcome. */
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const release of cleanup.splice(0).reverse()) await release();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-jobs-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function openQueue(filename: string): SqliteJobQueue {
  const queue = createSqliteJobQueue({ filename });
  cleanup.push(() => queue.close());
  return queue;
}

function startRunner(opts: JobRunnerOptions): JobRunner {
  const runner = createJobRunner({ pollMs: 200, ...opts });
  runner.start();
  cleanup.push(() => runner.stop());
  return runner;
}

/** A promise released from outside. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const jobState = async (queue: JobQueue, id: string): Promise<Job> => {
  const job = await queue.get(id);
  if (!job) throw new Error(`job ${id} is missing`);
  return job;
};

jobQueueSuite('sqlite (file)', async () => createSqliteJobQueue({ filename: join(tempDir(), 'jobs.db') }));

describe('SQLite job queue file', () => {
  it('keeps jobs across reopening the file and migrates it only once', async () => {
    const filename = join(tempDir(), 'jobs.db');
    const first = createSqliteJobQueue({ filename });
    const id = await first.enqueue({ type: 'a', payload: { kept: true } });
    await first.close();
    const second = openQueue(filename);
    expect((await second.get(id))?.payload).toEqual({ kept: true });
  });

  it('never hands the same job to two processes claiming at once', async () => {
    const filename = join(tempDir(), 'jobs.db');
    const queue = openQueue(filename);
    const ids = await Promise.all(Array.from({ length: 300 }, (_, n) => queue.enqueue({ type: 'race', payload: { n } })));
    const children = ['p1', 'p2', 'p3'].map((owner) => spawnFixture('claimer.ts', [filename, owner]));
    await Promise.all(
      children.map((c) =>
        waitFor(
          unlessExited(c, () => c.stdout.includes('ready')),
          'a claimer to start',
        ),
      ),
    );
    for (const c of children) c.process.stdin.write('go\n');
    await Promise.all(
      children.map((c) =>
        waitFor(
          unlessExited(c, () => c.process.exitCode === 0),
          'a claimer to finish',
        ),
      ),
    );
    const claimed = children.flatMap((c) => JSON.parse(c.stdout.split('\n')[1] ?? '[]') as string[]);
    expect(claimed).toHaveLength(300);
    expect(new Set(claimed)).toEqual(new Set(ids));
  });
});

describe('job runner on SQLite', () => {
  it('runs handlers concurrently up to the concurrency limit', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    const release = gate();
    let active = 0;
    let maxActive = 0;
    const runner = startRunner({
      queue,
      concurrency: 3,
      handlers: {
        work: async () => {
          maxActive = Math.max(maxActive, ++active);
          await release.promise;
          active--;
        },
      },
    });
    for (let n = 0; n < 7; n++) await queue.enqueue({ type: 'work', payload: { n } });
    runner.wake();
    await waitFor(() => active === 3, 'three jobs to run at once');
    release.open();
    await runner.idle();
    expect(maxActive).toBe(3);
    expect(await queue.counts()).toEqual({ queued: 0, running: 0, done: 7, failed: 0 });
  });

  it('fills its free slots with claims sent together, so one commit starts them all', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    let inFlight = 0;
    let mostInFlight = 0;
    const counting: JobQueue = {
      ...queue,
      claim: async (types, owner, leaseMs) => {
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        try {
          return await queue.claim(types, owner, leaseMs);
        } finally {
          inFlight--;
        }
      },
    };
    const release = gate();
    let active = 0;
    const runner = startRunner({ queue: counting, concurrency: 20, handlers: { work: () => (active++, release.promise) } });
    for (let n = 0; n < 30; n++) await queue.enqueue({ type: 'work', payload: { n } });
    runner.wake();
    await waitFor(() => active === 20, 'twenty jobs to run at once');
    // One claim first (the queue might be empty), then the other 19 slots at once, never more than are free.
    expect(mostInFlight).toBe(19);
    release.open();
    await runner.idle();
    expect(await queue.counts()).toEqual({ queued: 0, running: 0, done: 30, failed: 0 });
  });

  it('runs the jobs a burst claimed even when one claim of the burst failed', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    let claims = 0;
    const errors: unknown[] = [];
    const flaky: JobQueue = {
      ...queue,
      // The third claim (inside the first burst) fails after its siblings have claimed their jobs.
      claim: async (types, owner, leaseMs) => (++claims === 3 ? Promise.reject(new Error('disk hiccup')) : queue.claim(types, owner, leaseMs)),
    };
    const ran: number[] = [];
    for (let n = 0; n < 6; n++) await queue.enqueue({ type: 'work', payload: { n } });
    const runner = startRunner({
      queue: flaky,
      concurrency: 6,
      leaseMs: 60_000, // a stranded job would wait this long: far past the test's wait
      onQueueError: (err) => errors.push(err),
      handlers: { work: async (job) => void ran.push((job.payload as { n: number }).n) },
    });
    runner.wake();
    await waitFor(() => ran.length === 6, 'all six jobs to run');
    await runner.idle();
    expect(ran.sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(errors.map(String)).toEqual(['Error: disk hiccup']);
    expect(await queue.counts()).toEqual({ queued: 0, running: 0, done: 6, failed: 0 });
  });
  it('claims at once on wake() instead of waiting for the next poll', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    const runner = startRunner({ queue, pollMs: 60_000, handlers: { work: async () => {} } });
    await runner.idle();
    const id = await queue.enqueue({ type: 'work', payload: {} });
    runner.wake();
    await runner.idle();
    expect((await jobState(queue, id)).state).toBe('done');
  });

  it('sleeps until a delayed job is due rather than polling in a loop', async () => {
    const base = openQueue(join(tempDir(), 'jobs.db'));
    let claims = 0;
    const queue: JobQueue = {
      ...base,
      claim: (...args) => {
        claims++;
        return base.claim(...args);
      },
    };
    const runAt = new Date(Date.now() + 300);
    const id = await queue.enqueue({ type: 'work', payload: {}, runAt });
    let ranAt = 0;
    const handler = async () => {
      ranAt = Date.now();
    };
    startRunner({ queue, pollMs: 60_000, handlers: { work: handler } });
    await waitFor(async () => (await jobState(queue, id)).state === 'done', 'the delayed job to run');
    expect(ranAt).toBeGreaterThanOrEqual(runAt.getTime());
    expect(claims).toBeLessThan(10);
  });

  it('retries a failing job with exponential backoff, then succeeds', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    const calls: number[] = [];
    const errors: unknown[] = [];
    const handler = async () => {
      calls.push(Date.now());
      if (calls.length < 3) throw new Error(`attempt ${calls.length} failed`);
    };
    startRunner({ queue, handlers: { flaky: handler }, backoff: { baseMs: 60, maxMs: 1_000 }, onError: (e) => errors.push(e) });
    const id = await queue.enqueue({ type: 'flaky', payload: {} });
    await waitFor(async () => (await jobState(queue, id)).state === 'done', 'the job to succeed');
    expect(await jobState(queue, id)).toMatchObject({ attempts: 3, lastError: 'attempt 2 failed' });
    expect(errors).toHaveLength(2);
    // Equal jitter never retries earlier than half the exponential delay: 60/2 after the first, 120/2 after the second.
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(30);
    expect(calls[2]! - calls[1]!).toBeGreaterThanOrEqual(60);
  });

  it('gives up after maxAttempts and marks the job failed with the last error', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    let calls = 0;
    const handler = async () => {
      calls++;
      throw new Error('still broken');
    };
    const runner = startRunner({ queue, handlers: { broken: handler }, backoff: { baseMs: 1, maxMs: 5 } });
    const id = await queue.enqueue({ type: 'broken', payload: {}, maxAttempts: 3 });
    await waitFor(async () => (await jobState(queue, id)).state === 'failed', 'the job to fail for good');
    await runner.idle();
    expect(await jobState(queue, id)).toMatchObject({ attempts: 3, lastError: 'still broken', leaseOwner: null });
    expect(calls).toBe(3);
  });

  it('fails a job without running it when its lease expired on the final attempt', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    const id = await queue.enqueue({ type: 'work', payload: {}, maxAttempts: 1 });
    await queue.claim(['work'], 'a-dead-worker', 50);
    let calls = 0;
    const gaveUp: string[] = [];
    startRunner({ queue, handlers: { work: async () => void calls++ }, onGaveUp: async (job) => void gaveUp.push(job.id) });
    await waitFor(async () => gaveUp.length > 0, 'the job to be given up');
    expect(await jobState(queue, id)).toMatchObject({ state: 'failed', attempts: 2, lastError: expect.stringMatching(/gave up after 1 attempts/) });
    expect(calls).toBe(0);
    expect(gaveUp).toEqual([id]);
  });

  it('aborts the handler signal when a heartbeat reports the lease lost, and records no outcome', async () => {
    const base = openQueue(join(tempDir(), 'jobs.db'));
    const queue: JobQueue = { ...base, heartbeat: async () => false };
    let reason: unknown;
    const handler = async (_job: Job, { signal }: { signal: AbortSignal }) => {
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      reason = signal.reason;
      throw signal.reason;
    };
    const runner = startRunner({ queue, leaseMs: 90, handlers: { work: handler } });
    const id = await queue.enqueue({ type: 'work', payload: {} });
    runner.wake();
    await waitFor(() => reason, 'the handler to be aborted');
    await runner.idle();
    expect(reason).toMatchObject({ code: 'conflict' });
    expect(await jobState(queue, id)).toMatchObject({ state: 'running', lastError: null });
  });

  it('stop() waits for in-flight jobs to finish and claims nothing more', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    const release = gate();
    let started = 0;
    const runner = startRunner({
      queue,
      concurrency: 1,
      handlers: {
        slow: async () => {
          started++;
          await release.promise;
        },
      },
    });
    const first = await queue.enqueue({ type: 'slow', payload: {} });
    runner.wake();
    await waitFor(() => started === 1, 'the first job to start');
    const second = await queue.enqueue({ type: 'slow', payload: {} });
    let stopped = false;
    const stopping = runner.stop().then(() => {
      stopped = true;
    });
    for (let turn = 0; turn < 5; turn++) await new Promise(setImmediate);
    expect(stopped).toBe(false);
    release.open();
    await stopping;
    expect((await jobState(queue, first)).state).toBe('done');
    expect((await jobState(queue, second)).state).toBe('queued');
    expect(started).toBe(1);
  });

  it('stop() aborts handlers still running after stopTimeoutMs and leaves their lease to expire', async () => {
    const queue = openQueue(join(tempDir(), 'jobs.db'));
    let signal: AbortSignal | undefined;
    const handler = async (_job: Job, ctx: { signal: AbortSignal }) => {
      signal = ctx.signal;
      await new Promise(() => {}); // ignores its signal
    };
    const runner = startRunner({ queue, stopTimeoutMs: 100, handlers: { stuck: handler } });
    const id = await queue.enqueue({ type: 'stuck', payload: {} });
    runner.wake();
    await waitFor(() => signal, 'the handler to start');
    await runner.stop();
    expect(signal?.aborted).toBe(true);
    expect(await jobState(queue, id)).toMatchObject({ state: 'running', attempts: 1 });
  });

  it('computes retry delays that double per attempt, jitter down by at most half, and cap at maxMs', () => {
    const backoff = { baseMs: 100, maxMs: 1_000 };
    expect(retryDelayMs(1, backoff, () => 1)).toBe(100);
    expect(retryDelayMs(1, backoff, () => 0)).toBe(50);
    expect(retryDelayMs(3, backoff, () => 1)).toBe(400);
    expect(retryDelayMs(10, backoff, () => 1)).toBe(1_000);
    expect(retryDelayMs(10, backoff, () => 0)).toBe(500);
  });
});

describe('job runner after a crash', () => {
  it('re-runs a job whose worker was SIGKILLed mid-handler exactly once more, on attempt 2', async () => {
    const dir = tempDir();
    const filename = join(dir, 'jobs.db');
    const lines = join(dir, 'started.txt');
    const queue = openQueue(filename);
    const id = await queue.enqueue({ type: 'crash.test', payload: {} });

    const child = spawnFixture('crash-worker.ts', [filename, lines]);
    await waitFor(
      unlessExited(child, () => existsSync(lines) && readFileSync(lines, 'utf8').includes(id)),
      'the child to start the job',
    );
    child.process.kill('SIGKILL');
    if (child.process.exitCode === null && child.process.signalCode === null) await once(child.process, 'exit');
    expect(await jobState(queue, id)).toMatchObject({ state: 'running', attempts: 1 });

    let calls = 0;
    const idempotent = async (job: Job) => {
      calls++;
      // Keyed by job id: re-running it rewrites the same marker, never adds a second one.
      writeFileSync(join(dir, `done-${job.id}`), `${job.id}\n`);
    };
    startRunner({ queue, leaseMs: 500, pollMs: 100, handlers: { 'crash.test': idempotent } });
    await waitFor(async () => (await jobState(queue, id)).state === 'done', 'the job to complete');

    expect(await jobState(queue, id)).toMatchObject({ state: 'done', attempts: 2 });
    expect(calls).toBe(1);
    expect(readdirSync(dir).filter((f) => f.startsWith('done-'))).toEqual([`done-${id}`]);
    expect(readFileSync(lines, 'utf8')).toBe(`${id} 1\n`);
    expect(await queue.counts()).toEqual({ queued: 0, running: 0, done: 1, failed: 0 });
  });
});

interface Fixture {
  process: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
}

/** Start a fixture script in its own Node process (TypeScript through tsx), killed after the test. */
function spawnFixture(name: string, args: string[]): Fixture {
  const script = fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
  const child = spawn(process.execPath, ['--import', TSX, script, ...args], { stdio: 'pipe' });
  const fixture: Fixture = { process: child, stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    fixture.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    fixture.stderr += chunk.toString();
  });
  cleanup.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  return fixture;
}

/** `probe`, throwing as soon as the child exits unexpectedly (quoting its stderr), so a wait on it ends at once. */
function unlessExited<T>(f: Fixture, probe: () => T): () => T {
  return () => {
    const value = probe();
    const code = f.process.exitCode;
    if (!value && code !== null && code !== 0) throw new Error(`the child exited with ${code}: ${f.stderr}`);
    return value;
  };
}
