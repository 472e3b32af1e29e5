import { type EventBus, InProcessEventBus } from '@dossier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, startTestServer, type TestServer } from './helpers.ts';

/**
 * Issue 13: between nodes, document events travel by Redis pub/sub, which delivers at most once (a subscriber that
 * reconnects misses what was published meanwhile). A wait must not hang on an event that never comes.
 */
class DroppingBus implements EventBus {
  private readonly inner = new InProcessEventBus();
  dropped = 0;
  async publish(): Promise<void> {
    this.dropped++;
  }
  subscribe(topic: string, handler: (event: unknown) => void): () => void {
    return this.inner.subscribe(topic, handler);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * A bus whose first publish of a `ready` event fails, as when the worker that saved `ready` stops (killed, or the bus
 * unreachable) before it publishes: the job fails after the save and runs again.
 */
class StoppingBeforeReadyBus implements EventBus {
  private readonly inner = new InProcessEventBus();
  stopped = 0;
  async publish(topic: string, event: unknown): Promise<void> {
    if (this.stopped === 0 && (event as { status?: string }).status === 'ready') {
      this.stopped++;
      throw new Error('the worker stopped between saving ready and publishing it');
    }
    await this.inner.publish(topic, event);
  }
  subscribe(topic: string, handler: (event: unknown) => void): () => void {
    return this.inner.subscribe(topic, handler);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

let t: TestServer;
let stopping: TestServer;
const bus = new DroppingBus();
const stoppingBus = new StoppingBeforeReadyBus();
beforeAll(async () => {
  [t, stopping] = await Promise.all([startTestServer({ adapters: { events: bus } }), startTestServer({ adapters: { events: stoppingBus } })]);
});
afterAll(async () => {
  await Promise.all([t?.close(), stopping?.close()]);
});

describe('a document event that is lost', () => {
  it('still lets a wait answer once the document is ready, by reading it again', async () => {
    const collection = await t.createCollection({ name: 'lossy' });
    const doc = await t.upload(collection.id, 'lossy.md', '# Lossy\n\nNo event about this file arrives.\n');
    const done = await t.waitDone(doc.id);
    expect(done.status).toBe('ready');
    expect(bus.dropped).toBeGreaterThan(0);
  });

  it('is published again by the next attempt when the worker stopped between saving the status and publishing it', async () => {
    const collection = await stopping.createCollection({ name: 'stopped' });
    const stream = await openSse(`${stopping.url}/v1/collections/${collection.id}/documents/events`, { authorization: `Bearer ${stopping.liveKey}` });
    try {
      const doc = await stopping.upload(collection.id, 'stopped.md', '# Stopped\n\nThe first ready event of this file is never published.\n');
      const ready = await stream.next<{ documentId: string; status: string }>((m) => m.documentId === doc.id && m.status === 'ready', 30_000);
      expect(ready.status).toBe('ready');
      expect(stoppingBus.stopped).toBe(1);
    } finally {
      stream.close();
    }
  });
});
