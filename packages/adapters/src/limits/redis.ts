import type { Redis } from 'ioredis';
import { importOptional } from '../optional.ts';

/** One Redis connection shared by the rate limiters and the concurrency gate of a node. */
export interface RedisConnection {
  client: Redis;
  /** Drop one user of the connection; the last one closes it. */
  release(): Promise<void>;
}

/**
 * Connect to Redis at `url` (`redis://host:port/db`), loading ioredis only when a Redis store is configured.
 * Commands fail fast while Redis is down (no offline queue), so a limit check never hangs a request.
 */
export async function connectRedis(url: string, users = 1): Promise<RedisConnection> {
  const { Redis: Client } = await importOptional<typeof import('ioredis')>('ioredis', 'Shared rate limits (DOSSIER_REDIS_URL)');
  const client = new Client(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await client.connect();
  let left = users;
  return {
    client,
    async release() {
      if (--left === 0) await client.quit();
    },
  };
}
