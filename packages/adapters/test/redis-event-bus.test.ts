import { randomUUID } from 'node:crypto';
import { eventBusSuite, waitFor } from '@dossier/core/testing';
import { describe, expect, it } from 'vitest';
import { createRedisEventBus } from '../src/redis/event-bus.ts';

/** The Redis pub/sub EventBus against the machine's Redis (issue 13), each bus under its own key prefix. */

const REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

eventBusSuite('redis pub/sub', () => createRedisEventBus(REDIS_URL, `test-${randomUUID()}:`));

describe('Redis EventBus across nodes', () => {
  it('delivers what one node publishes to another node subscribed to the topic', async () => {
    const prefix = `test-${randomUUID()}:`;
    const [nodeA, nodeB] = await Promise.all([createRedisEventBus(REDIS_URL, prefix), createRedisEventBus(REDIS_URL, prefix)]);
    try {
      const seen: unknown[] = [];
      nodeB.subscribe('collection:1', (event) => seen.push(event));
      await nodeB.publish('warm-up', {}); // waits for B's subscription to be live in Redis
      await nodeA.publish('collection:1', { documentId: 'd1', status: 'ready' });
      await waitFor(() => seen.length > 0, 'the event on node B', 5000, 10);
      expect(seen).toEqual([{ documentId: 'd1', status: 'ready' }]);
    } finally {
      await Promise.all([nodeA.close(), nodeB.close()]);
    }
  });

  it("has every subscription live in Redis once settled() resolves, so another node's next publish arrives", async () => {
    const prefix = `test-${randomUUID()}:`;
    const [nodeA, nodeB] = await Promise.all([createRedisEventBus(REDIS_URL, prefix), createRedisEventBus(REDIS_URL, prefix)]);
    try {
      const seen: unknown[] = [];
      const arrived = new Promise<void>((resolve) => {
        nodeB.subscribe('collection:2', (event) => {
          seen.push(event);
          resolve();
        });
      });
      await nodeB.settled!();
      await nodeA.publish('collection:2', { documentId: 'd2', status: 'uploading' });
      await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error('no event within 5 s')), 5000))]);
      expect(seen).toEqual([{ documentId: 'd2', status: 'uploading' }]);
    } finally {
      await Promise.all([nodeA.close(), nodeB.close()]);
    }
  });

  it('rejects settled() when Redis refuses a subscription, and asks again on the next subscribe', async () => {
    const prefix = `test-${randomUUID()}:`;
    const user = `dossier-test-${randomUUID()}`;
    const { Redis } = await import('ioredis');
    const control = new Redis(REDIS_URL);
    await control.call('ACL', 'SETUSER', user, 'on', '>secret', '~*', '+@all', 'resetchannels', `&${prefix}events:allowed`);
    const restricted = await createRedisEventBus(REDIS_URL.replace('redis://', `redis://${user}:secret@`), prefix);
    try {
      restricted.subscribe('denied', () => {});
      await expect(restricted.settled!()).rejects.toThrow(/did not accept a subscription/);
      restricted.subscribe('allowed', () => {});
      await expect(restricted.settled!()).resolves.toBeUndefined();
      restricted.subscribe('denied', () => {});
      await expect(restricted.settled!()).rejects.toThrow(/NOPERM|No permissions/i);
    } finally {
      await restricted.close();
      await control.call('ACL', 'DELUSER', user);
      await control.quit();
    }
  });

  it('says so through its logger when Redis refuses an UNSUBSCRIBE, without calling it a failed subscription', async () => {
    const prefix = `test-${randomUUID()}:`;
    const user = `dossier-test-${randomUUID()}`;
    const { Redis } = await import('ioredis');
    const control = new Redis(REDIS_URL);
    await control.call('ACL', 'SETUSER', user, 'on', '>secret', '~*', '+@all', '-unsubscribe', 'allchannels');
    const warnings: { message: string; data?: Record<string, unknown> }[] = [];
    const log = { warn: (message: string, data?: Record<string, unknown>) => warnings.push({ message, data }) };
    const restricted = await createRedisEventBus(REDIS_URL.replace('redis://', `redis://${user}:secret@`), prefix, log);
    try {
      const unsubscribe = restricted.subscribe('topic', () => {});
      await expect(restricted.settled!()).resolves.toBeUndefined();
      unsubscribe();
      await expect(restricted.settled!()).resolves.toBeUndefined();
      expect(warnings).toEqual([
        { message: expect.stringMatching(/did not accept an UNSUBSCRIBE/), data: { topic: 'topic', error: expect.stringMatching(/NOPERM|No permissions/i) } },
      ]);
    } finally {
      await restricted.close();
      await control.call('ACL', 'DELUSER', user);
      await control.quit();
    }
  });
});
