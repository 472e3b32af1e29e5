import { randomUUID } from 'node:crypto';
import type { AcquireResult, ConcurrencyGate } from '@dossier/core';
import type { RedisConnection } from './redis.ts';

/**
 * One sorted set per key (member: lease id, score: expiry in ms). Acquire is one Lua script, so two nodes can never
 * both take the last slot: drop expired leases, count, add if below the cap, else answer the earliest expiry.
 * Hand-written because a counter (rate-limiter-flexible's consume/reward) cannot tie a slot to its holder: a release
 * after the counter's window reset would free someone else's slot.
 */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) - tonumber(ARGV[1])}
end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[3]), ARGV[4])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, 0}
`;

/** Slots held in Redis under `prefix`, shared by every node using the same Redis. */
export function redisConcurrencyGate(redis: RedisConnection, prefix: string): ConcurrencyGate {
  const setKey = (key: string) => `${prefix}gate:${key}`;
  return {
    async acquire(key, cap, leaseMs): Promise<AcquireResult> {
      // Redis's clock is used nowhere: expiry scores come from this node's clock, like the memory gate.
      const id = randomUUID();
      const [ok, wait] = (await redis.client.eval(ACQUIRE, 1, setKey(key), Date.now(), cap, leaseMs, id)) as [number, number];
      return ok === 1 ? { lease: { key, id } } : { lease: null, retryAfterMs: Math.max(0, wait) };
    },
    async release(lease) {
      await redis.client.zrem(setKey(lease.key), lease.id);
    },
    async held(key) {
      await redis.client.zremrangebyscore(setKey(key), '-inf', Date.now());
      return redis.client.zcard(setKey(key));
    },
    close: () => redis.release(),
  };
}
