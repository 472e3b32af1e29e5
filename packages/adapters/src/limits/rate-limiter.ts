import type { RateDecision, RateLimiter, RateLimiterFactory, RateSpec } from '@dossier/core';
import { createRequire } from 'node:module';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisConnection } from './redis.ts';

/**
 * Rate limits on rate-limiter-flexible (a well-kept library with atomic memory and Redis stores, used by many
 * Node services) rather than a hand-written counter: the Redis store makes several nodes enforce one limit.
 * A spec with a burst reserve is a BurstyRateLimiter: the window's points, then a reserve refilled over ten
 * windows, which behaves like a token bucket of that capacity.
 */
/** rate-limiter-flexible (CommonJS), required by the first limiter built: an embedded library never loads it (issue 41). */
const flexible = () => createRequire(import.meta.url)('rate-limiter-flexible') as typeof import('rate-limiter-flexible');

type Build = (keyPrefix: string, points: number, durationMs: number) => RateLimiterAbstract;

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

function decision(res: RateLimiterRes | null, spec: RateSpec, allowed: boolean): RateDecision {
  if (!res) return { allowed: true, remaining: spec.points, retryAfterMs: 0 };
  return { allowed, remaining: allowed ? Math.max(0, res.remainingPoints) : 0, retryAfterMs: Math.max(0, res.msBeforeNext) };
}

function limiterOf(build: Build, name: string, spec: RateSpec): RateLimiter {
  const main = build(`${name}`, spec.points, spec.durationMs);
  const burst = spec.burst > 0 ? build(`${name}:burst`, spec.burst, spec.durationMs * 10) : null;
  const spender = burst ? new (flexible().BurstyRateLimiter)(main, burst) : main;
  return {
    async consume(key, points = 1) {
      try {
        return decision(await spender.consume(key, points), spec, true);
      } catch (err) {
        if (err instanceof flexible().RateLimiterRes) return decision(err, spec, false);
        throw err;
      }
    },
    async peek(key) {
      const [used, reserve] = await Promise.all([main.get(key), burst?.get(key) ?? null]);
      const mainLeft = used ? spec.points - used.consumedPoints : spec.points;
      const burstLeft = burst ? (reserve ? spec.burst - reserve.consumedPoints : spec.burst) : 0;
      const allowed = mainLeft + burstLeft > 0;
      return { allowed, remaining: Math.max(0, mainLeft), retryAfterMs: allowed ? 0 : Math.min(used?.msBeforeNext ?? 0, reserve?.msBeforeNext ?? Infinity) };
    },
    async reset(key) {
      await Promise.all([main.delete(key), burst?.delete(key)]);
    },
  };
}

/** Limits counted in this process: the default for one node. */
export function memoryRateLimiters(): RateLimiterFactory {
  const build: Build = (keyPrefix, points, durationMs) => new (flexible().RateLimiterMemory)({ keyPrefix, points, duration: seconds(durationMs) });
  return { create: (name, spec) => limiterOf(build, name, spec), close: async () => {} };
}

/** Limits counted in Redis under `prefix`, so every node sharing the Redis enforces the same limit. */
export function redisRateLimiters(redis: RedisConnection, prefix: string): RateLimiterFactory {
  const build: Build = (keyPrefix, points, durationMs) =>
    new (flexible().RateLimiterRedis)({ storeClient: redis.client, keyPrefix: `${prefix}${keyPrefix}`, points, duration: seconds(durationMs) });
  return { create: (name, spec) => limiterOf(build, name, spec), close: () => redis.release() };
}
