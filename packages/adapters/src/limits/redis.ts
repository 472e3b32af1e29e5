import { importOptional } from '../optional.ts';

/**
 * The commands of an ioredis client the limits use, spelled out so that the published declarations do not need
 * ioredis (an optional peer) installed; an ioredis `Redis` is one.
 */
export interface RedisClient {
  eval(script: string, numberOfKeys: number, ...args: (string | number)[]): Promise<unknown>;
  zrem(key: string, ...members: string[]): Promise<number>;
  zremrangebyscore(key: string, min: number | string, max: number | string): Promise<number>;
  zcard(key: string): Promise<number>;
  quit(): Promise<unknown>;
}

/** One Redis connection shared by the rate limiters and the concurrency gate of a node. */
export interface RedisConnection {
  client: RedisClient;
  /** Drop one user of the connection; the last one closes it. */
  release(): Promise<void>;
}

/**
 * Connect to Redis at `url` (`redis://host:port/db`), loading ioredis only when a Redis store is configured.
 * Commands fail fast while Redis is down (no offline queue), so a limit check never hangs a request.
 */
export async function connectRedis(url: string, users = 1): Promise<RedisConnection> {
  const { Redis: Client } = await importOptional<typeof import('ioredis')>('ioredis', 'Shared rate limits (DOSSIER_REDIS_URL)');
  const client: RedisClient & { connect(): Promise<void> } = new Client(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await client.connect();
  let left = users;
  return {
    client,
    async release() {
      if (--left === 0) await client.quit();
    },
  };
}
