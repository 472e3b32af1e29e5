import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOB_QUEUE_SPEC_VERSION } from '../ports/job-queue.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { waitFor } from './wait-for.ts';

const LEASE_MS = 60_000;
/** Lease short enough to expire within a test; tests wait for expiry by polling, never by sleeping blind. */
const SHORT_LEASE_MS = 50;
const WAIT_MS = 5_000;

const inMs = (ms: number): Date => new Date(Date.now() + ms);

/**
 * Conformance suite for JobQueue adapters. `factory` returns an empty queue per test; the suite calls
 * its `close()` afterwards when it has one.
 */
export function jobQueueSuite(name: string, factory: () => Promise<JobQueue>): void {
  describe(`JobQueue conformance (spec ${JOB_QUEUE_SPEC_VERSION}): ${name}`, () => {
    let queue: JobQueue;
    beforeEach(async () => {
      queue = await factory();
    });
    afterEach(async () => {
      await (queue as JobQueue & { close?: () => Promise<void> }).close?.();
    });

    lifecycleTests(() => queue);
    claimTests(() => queue);
    leaseTests(() => queue);
    failureTests(() => queue);
    dedupeTests(() => queue);
    reportingTests(() => queue);
  });
}

function lifecycleTests(q: () => JobQueue): void {
  it('stores an enqueued job as queued with its payload, no attempts and 5 max attempts by default', async () => {
    const id = await q().enqueue({ type: 'a', payload: { n: 1, nested: { s: 'x' } } });
    const job = await q().get(id);
    expect(job).toMatchObject({ id, type: 'a', payload: { n: 1, nested: { s: 'x' } }, state: 'queued' });
    expect(job).toMatchObject({ attempts: 0, maxAttempts: 5, leaseOwner: null, leaseExpiresAt: null, lastError: null });
    expect(job?.runAt).toBeInstanceOf(Date);
  });

  it('returns null from get for an unknown id', async () => {
    expect(await q().get('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('claims a queued job with a lease and one attempt, then completes it', async () => {
    const id = await q().enqueue({ type: 'a', payload: { n: 1 }, maxAttempts: 3 });
    const before = Date.now();
    const job = await q().claim(['a'], 'w1', LEASE_MS);
    expect(job).toMatchObject({ id, type: 'a', payload: { n: 1 }, state: 'running', attempts: 1, maxAttempts: 3 });
    expect(job?.leaseOwner).toBe('w1');
    expect(job?.leaseExpiresAt?.getTime()).toBeGreaterThanOrEqual(before + LEASE_MS);
    expect(await q().claim(['a'], 'w2', LEASE_MS)).toBeNull();
    await q().complete(id, 'w1');
    expect(await q().get(id)).toMatchObject({ state: 'done', attempts: 1 });
    expect(await q().claim(['a'], 'w2', LEASE_MS)).toBeNull();
  });

  it('ignores complete from an owner that does not hold the lease', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', LEASE_MS);
    await q().complete(id, 'intruder');
    expect(await q().get(id)).toMatchObject({ state: 'running', leaseOwner: 'w1' });
  });
}

function claimTests(q: () => JobQueue): void {
  it('does not claim a job before its runAt', async () => {
    await q().enqueue({ type: 'a', payload: {}, runAt: inMs(60_000) });
    expect(await q().claim(['a'], 'w1', LEASE_MS)).toBeNull();
  });

  it('claims a job whose runAt has passed', async () => {
    const id = await q().enqueue({ type: 'a', payload: {}, runAt: inMs(-1_000) });
    expect((await q().claim(['a'], 'w1', LEASE_MS))?.id).toBe(id);
  });

  it('claims only jobs of the requested types', async () => {
    await q().enqueue({ type: 'a', payload: {} });
    const b = await q().enqueue({ type: 'b', payload: {} });
    expect(await q().claim(['c'], 'w1', LEASE_MS)).toBeNull();
    expect(await q().claim([], 'w1', LEASE_MS)).toBeNull();
    expect((await q().claim(['b', 'c'], 'w1', LEASE_MS))?.id).toBe(b);
  });

  it('claims the job that has been due longest first', async () => {
    const later = await q().enqueue({ type: 'a', payload: {}, runAt: inMs(-1_000) });
    const earlier = await q().enqueue({ type: 'a', payload: {}, runAt: inMs(-5_000) });
    expect((await q().claim(['a'], 'w1', LEASE_MS))?.id).toBe(earlier);
    expect((await q().claim(['a'], 'w1', LEASE_MS))?.id).toBe(later);
  });

  it('claims higher priority first, then the job due longest; a job not yet due waits whatever its priority', async () => {
    const low = await q().enqueue({ type: 'a', payload: {}, runAt: inMs(-5_000) });
    const highLater = await q().enqueue({ type: 'b', payload: {}, runAt: inMs(-1_000), priority: 20 });
    const highEarlier = await q().enqueue({ type: 'a', payload: {}, runAt: inMs(-2_000), priority: 20 });
    await q().enqueue({ type: 'a', payload: {}, runAt: inMs(60_000), priority: 99 });
    const order = [];
    for (let i = 0; i < 4; i++) order.push((await q().claim(['a', 'b'], 'w1', LEASE_MS))?.id ?? null);
    expect(order).toEqual([highEarlier, highLater, low, null]);
  });

  it('never hands the same job to two owners claiming at once', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => q().enqueue({ type: 'a', payload: { n } })));
    const claims = await Promise.all(Array.from({ length: 30 }, (_, n) => q().claim(['a'], `w${n % 2}`, LEASE_MS)));
    const claimed = claims.flatMap((job) => (job ? [job.id] : []));
    expect(claimed).toHaveLength(20);
    expect(new Set(claimed)).toEqual(new Set(ids));
  });
}

function leaseTests(q: () => JobQueue): void {
  it('lets another owner re-claim a job whose lease expired, with attempts incremented', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', SHORT_LEASE_MS);
    const again = await waitFor(() => q().claim(['a'], 'w2', LEASE_MS), 'the lease to expire', WAIT_MS, 10);
    expect(again).toMatchObject({ id, state: 'running', attempts: 2, leaseOwner: 'w2' });
  });

  it('does not let another owner claim a job whose lease is live', async () => {
    await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', LEASE_MS);
    expect(await q().claim(['a'], 'w2', LEASE_MS)).toBeNull();
  });

  it('ignores the previous owner once its expired lease was re-claimed', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', SHORT_LEASE_MS);
    await waitFor(() => q().claim(['a'], 'w2', LEASE_MS), 'the lease to expire', WAIT_MS, 10);
    expect(await q().heartbeat(id, 'w1', LEASE_MS)).toBe(false);
    await q().complete(id, 'w1');
    await q().fail(id, 'w1', 'late', null);
    expect(await q().get(id)).toMatchObject({ state: 'running', leaseOwner: 'w2', lastError: null });
  });

  it('extends the lease on heartbeat by its owner', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    const job = await q().claim(['a'], 'w1', 1_000);
    expect(await q().heartbeat(id, 'w1', LEASE_MS)).toBe(true);
    const after = await q().get(id);
    expect(after?.leaseExpiresAt?.getTime()).toBeGreaterThan(job?.leaseExpiresAt?.getTime() ?? Number.NaN);
    expect(after?.leaseOwner).toBe('w1');
  });

  it('refuses a heartbeat from a non-owner or for a finished job', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', LEASE_MS);
    expect(await q().heartbeat(id, 'intruder', LEASE_MS)).toBe(false);
    await q().complete(id, 'w1');
    expect(await q().heartbeat(id, 'w1', LEASE_MS)).toBe(false);
    expect(await q().heartbeat('00000000-0000-4000-8000-000000000000', 'w1', LEASE_MS)).toBe(false);
  });
}

function failureTests(q: () => JobQueue): void {
  it('requeues a failed job at retryAt with the error recorded and the lease released', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', LEASE_MS);
    const retryAt = inMs(60_000);
    await q().fail(id, 'w1', 'boom', retryAt);
    const job = await q().get(id);
    expect(job).toMatchObject({ state: 'queued', attempts: 1, lastError: 'boom', leaseOwner: null, leaseExpiresAt: null });
    expect(job?.runAt.getTime()).toBe(retryAt.getTime());
    expect(await q().claim(['a'], 'w1', LEASE_MS)).toBeNull();
  });

  it('lets a requeued job be claimed again once retryAt has passed', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', LEASE_MS);
    await q().fail(id, 'w1', 'boom', inMs(-1));
    expect(await q().claim(['a'], 'w2', LEASE_MS)).toMatchObject({ id, attempts: 2, lastError: 'boom' });
  });

  it('marks a job failed for good when retryAt is null', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', LEASE_MS);
    await q().fail(id, 'w1', 'fatal', null);
    expect(await q().get(id)).toMatchObject({ state: 'failed', lastError: 'fatal', leaseOwner: null });
    expect(await q().claim(['a'], 'w1', LEASE_MS)).toBeNull();
  });

  it('ignores fail from an owner that does not hold the lease', async () => {
    const id = await q().enqueue({ type: 'a', payload: {} });
    await q().claim(['a'], 'w1', LEASE_MS);
    await q().fail(id, 'intruder', 'boom', null);
    expect(await q().get(id)).toMatchObject({ state: 'running', lastError: null });
  });
}

function dedupeTests(q: () => JobQueue): void {
  it('returns the unfinished job id for a repeated dedupeKey, queued or running', async () => {
    const id = await q().enqueue({ type: 'a', payload: { n: 1 }, dedupeKey: 'k' });
    expect(await q().enqueue({ type: 'a', payload: { n: 2 }, dedupeKey: 'k' })).toBe(id);
    await q().claim(['a'], 'w1', LEASE_MS);
    expect(await q().enqueue({ type: 'a', payload: { n: 3 }, dedupeKey: 'k' })).toBe(id);
    expect((await q().counts()).queued + (await q().counts()).running).toBe(1);
    expect((await q().get(id))?.payload).toEqual({ n: 1 });
  });

  it('creates a new job for a dedupeKey whose job is done or failed', async () => {
    const first = await q().enqueue({ type: 'a', payload: {}, dedupeKey: 'k' });
    await q().claim(['a'], 'w1', LEASE_MS);
    await q().complete(first, 'w1');
    const second = await q().enqueue({ type: 'a', payload: {}, dedupeKey: 'k' });
    expect(second).not.toBe(first);
    await q().claim(['a'], 'w1', LEASE_MS);
    await q().fail(second, 'w1', 'fatal', null);
    const third = await q().enqueue({ type: 'a', payload: {}, dedupeKey: 'k' });
    expect(new Set([first, second, third]).size).toBe(3);
  });

  it('does not deduplicate jobs without a dedupeKey or with different keys', async () => {
    const a = await q().enqueue({ type: 'a', payload: {} });
    const b = await q().enqueue({ type: 'a', payload: {} });
    const c = await q().enqueue({ type: 'a', payload: {}, dedupeKey: 'k1' });
    const d = await q().enqueue({ type: 'a', payload: {}, dedupeKey: 'k2' });
    expect(new Set([a, b, c, d]).size).toBe(4);
  });
}

function reportingTests(q: () => JobQueue): void {
  it('counts jobs in every state, zero included', async () => {
    expect(await q().counts()).toEqual({ queued: 0, running: 0, done: 0, failed: 0 });
    for (const n of [0, 1, 2, 3]) await q().enqueue({ type: 'a', payload: { n } });
    const toComplete = await q().claim(['a'], 'w', LEASE_MS);
    const toFail = await q().claim(['a'], 'w', LEASE_MS);
    await q().claim(['a'], 'w', LEASE_MS);
    await q().complete(toComplete?.id ?? '', 'w');
    await q().fail(toFail?.id ?? '', 'w', 'fatal', null);
    expect(await q().counts()).toEqual({ queued: 1, running: 1, done: 1, failed: 1 });
  });

  it('reports no wake time when no queued or running job of the types exists', async () => {
    expect(await q().nextWakeAt(['a'])).toBeNull();
    const id = await q().enqueue({ type: 'b', payload: {} });
    expect(await q().nextWakeAt(['a'])).toBeNull();
    await q().claim(['b'], 'w', LEASE_MS);
    await q().complete(id, 'w');
    expect(await q().nextWakeAt(['b'])).toBeNull();
  });

  it('reports the earliest queued runAt as the wake time', async () => {
    const soon = inMs(10_000);
    await q().enqueue({ type: 'a', payload: {}, runAt: inMs(20_000) });
    await q().enqueue({ type: 'a', payload: {}, runAt: soon });
    await q().enqueue({ type: 'b', payload: {}, runAt: inMs(1_000) });
    expect((await q().nextWakeAt(['a']))?.getTime()).toBe(soon.getTime());
  });

  it('reports a running job lease expiry as the wake time', async () => {
    await q().enqueue({ type: 'a', payload: {} });
    const job = await q().claim(['a'], 'w', 10_000);
    await q().enqueue({ type: 'a', payload: {}, runAt: inMs(20_000) });
    expect((await q().nextWakeAt(['a']))?.getTime()).toBe(job?.leaseExpiresAt?.getTime());
  });
}
