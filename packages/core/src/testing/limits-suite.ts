import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONCURRENCY_GATE_SPEC_VERSION } from '../ports/concurrency-gate.ts';
import { RATE_LIMITER_SPEC_VERSION } from '../ports/rate-limiter.ts';
import type { ConcurrencyGate } from '../ports/concurrency-gate.ts';
import type { RateLimiterFactory } from '../ports/rate-limiter.ts';

let unique = 0;
const keyOf = (what: string) => `${what}-${process.pid}-${Date.now()}-${unique++}`;

/** The rules every RateLimiterFactory keeps, whatever its store. */
export function rateLimiterSuite(name: string, factory: () => Promise<RateLimiterFactory>): void {
  describe(`RateLimiter conformance (spec ${RATE_LIMITER_SPEC_VERSION}): ${name}`, () => {
    let limiters: RateLimiterFactory;
    beforeEach(async () => {
      limiters = await factory();
    });
    afterEach(async () => {
      await limiters.close();
    });

    it("allows the window's points, then refuses with the time until the window resets", async () => {
      const limiter = limiters.create(keyOf('window'), { points: 3, durationMs: 60_000, burst: 0 });
      const decisions = [];
      for (let i = 0; i < 5; i++) decisions.push(await limiter.consume('caller'));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
      expect(decisions[0]?.remaining).toBe(2);
      const refused = decisions[4]!;
      expect(refused.retryAfterMs).toBeGreaterThan(50_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    });

    it('counts each key apart, and two limits with the same keys apart', async () => {
      const name1 = keyOf('a');
      const first = limiters.create(name1, { points: 1, durationMs: 60_000, burst: 0 });
      const second = limiters.create(keyOf('b'), { points: 1, durationMs: 60_000, burst: 0 });
      expect((await first.consume('x')).allowed).toBe(true);
      expect((await first.consume('x')).allowed).toBe(false);
      expect((await first.consume('y')).allowed).toBe(true);
      expect((await second.consume('x')).allowed).toBe(true);
    });

    it('spends the burst reserve once the window is used up', async () => {
      const limiter = limiters.create(keyOf('burst'), { points: 2, durationMs: 60_000, burst: 2 });
      const allowed = [];
      for (let i = 0; i < 6; i++) allowed.push((await limiter.consume('k')).allowed);
      expect(allowed).toEqual([true, true, true, true, false, false]);
    });

    it('peeks without spending, and reset forgets a key', async () => {
      const limiter = limiters.create(keyOf('peek'), { points: 2, durationMs: 60_000, burst: 0 });
      expect((await limiter.peek('k')).allowed).toBe(true);
      await limiter.consume('k');
      await limiter.consume('k');
      const blocked = await limiter.peek('k');
      expect(blocked.allowed).toBe(false);
      expect(blocked.retryAfterMs).toBeGreaterThan(0);
      await limiter.reset('k');
      expect((await limiter.consume('k')).allowed).toBe(true);
    });

    it('lets a window expire and refills it', async () => {
      const limiter = limiters.create(keyOf('expiry'), { points: 1, durationMs: 1000, burst: 0 });
      expect((await limiter.consume('k')).allowed).toBe(true);
      const refused = await limiter.consume('k');
      expect(refused.allowed).toBe(false);
      // A real wait is the behaviour: the window expires in the store (Redis, Postgres: their clock, not this process's).
      await new Promise((r) => setTimeout(r, refused.retryAfterMs + 50));
      expect((await limiter.consume('k')).allowed).toBe(true);
    });
  });
}

/** The rules every ConcurrencyGate keeps, whatever its store. */
export function concurrencyGateSuite(name: string, factory: () => Promise<ConcurrencyGate>): void {
  describe(`ConcurrencyGate conformance (spec ${CONCURRENCY_GATE_SPEC_VERSION}): ${name}`, () => {
    let gate: ConcurrencyGate;
    beforeEach(async () => {
      gate = await factory();
    });
    afterEach(async () => {
      await gate.close();
    });

    it('admits up to the cap, refuses the next with the earliest expiry, and admits again after a release', async () => {
      const org = keyOf('org');
      const first = await gate.acquire(org, 2, 60_000);
      const second = await gate.acquire(org, 2, 60_000);
      const third = await gate.acquire(org, 2, 60_000);
      expect(first.lease).not.toBeNull();
      expect(second.lease).not.toBeNull();
      expect(third.lease).toBeNull();
      if (third.lease === null) expect(third.retryAfterMs).toBeGreaterThan(50_000);
      expect(await gate.held(org)).toBe(2);
      await gate.release(first.lease!);
      await gate.release(first.lease!); // twice is a no-op: it must not free the other holder's slot
      expect(await gate.held(org)).toBe(1);
      expect((await gate.acquire(org, 2, 60_000)).lease).not.toBeNull();
      expect((await gate.acquire(org, 2, 60_000)).lease).toBeNull();
    });

    it('keeps keys apart', async () => {
      const a = keyOf('org-a');
      const b = keyOf('org-b');
      expect((await gate.acquire(a, 1, 60_000)).lease).not.toBeNull();
      expect((await gate.acquire(b, 1, 60_000)).lease).not.toBeNull();
      expect((await gate.acquire(a, 1, 60_000)).lease).toBeNull();
    });

    it('frees the slot of a holder that never released once its lease expires', async () => {
      const org = keyOf('org-crash');
      expect((await gate.acquire(org, 1, 200)).lease).not.toBeNull();
      const refused = await gate.acquire(org, 1, 200);
      expect(refused.lease).toBeNull();
      // A real wait is the behaviour: the lease expires in the store (Redis, Postgres: their clock, not this process's).
      await new Promise((r) => setTimeout(r, 300));
      expect((await gate.acquire(org, 1, 200)).lease).not.toBeNull();
    });

    it('never admits more than the cap under concurrent acquires', async () => {
      const org = keyOf('org-race');
      const results = await Promise.all(Array.from({ length: 20 }, () => gate.acquire(org, 5, 60_000)));
      expect(results.filter((r) => r.lease !== null)).toHaveLength(5);
    });
  });
}
