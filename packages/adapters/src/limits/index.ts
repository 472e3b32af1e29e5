import { type ConcurrencyGate, memoryConcurrencyGate, type RateLimiterFactory } from '@dossier/core';
import { redisConcurrencyGate } from './concurrency-gate.ts';
import { memoryRateLimiters, redisRateLimiters } from './rate-limiter.ts';
import { connectRedis } from './redis.ts';

export { redisConcurrencyGate } from './concurrency-gate.ts';
export { memoryRateLimiters, redisRateLimiters } from './rate-limiter.ts';
export { connectRedis, type RedisClient, type RedisConnection } from './redis.ts';

/** Where rate limits and concurrency slots are counted. */
export interface LimitStores {
  rateLimiters: RateLimiterFactory;
  gate: ConcurrencyGate;
}

/** In this process when `redisUrl` is null; otherwise in Redis under `prefix`, shared by every node. */
export async function createLimitStores(redisUrl: string | null, prefix = 'dossier:'): Promise<LimitStores> {
  if (!redisUrl) return { rateLimiters: memoryRateLimiters(), gate: memoryConcurrencyGate() };
  const redis = await connectRedis(redisUrl, 2);
  return { rateLimiters: redisRateLimiters(redis, prefix), gate: redisConcurrencyGate(redis, prefix) };
}
