import { type EventBus, InProcessEventBus } from '@dossier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, startTestServer, type TestServer } from './helpers.ts';

/**
 * Issue 13: between nodes, document events travel by Redis pub/sub, which delivers at most once (a subscriber that
 * reconnects misses what was published meanwhile). A wait must not hang on an event that never comes. This bus
 * loses the events `lose` picks: dropped silently, or failing the publish (as when the worker that saved the status
 * stops, killed or cut off from the bus, before it publishes: its job fails after the save and runs again).
 */
class LossyBus implements EventBus {
  private readonly inner = new InProcessEventBus();
  lost = 0;
  constructor(private readonly lose: (event: { status?: string }, lostSoFar: number) => 'drop' | 'fail' | null) {}
  async publish(topic: string, event: unknown): Promise<void> {
    const loss = this.lose(event as { status?: string }, this.lost);
    if (loss) this.lost++;
    if (loss === 'fail') throw new Error('the worker stopped between saving the status and publishing it');
    if (!loss) await this.inner.publish(topic, event);
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
const bus = new LossyBus(() => 'drop');
const stoppingBus = new LossyBus((event, lostSoFar) => (lostSoFar === 0 && event.status === 'ready' ? 'fail' : null));
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
    expect(bus.lost).toBeGreaterThan(0);
  });

  it('is published again by the next attempt when the worker stopped between saving the status and publishing it', async () => {
    const collection = await stopping.createCollection({ name: 'stopped' });
    const stream = await openSse(`${stopping.url}/v1/collections/${collection.id}/documents/events`, { authorization: `Bearer ${stopping.liveKey}` });
    try {
      const doc = await stopping.upload(collection.id, 'stopped.md', '# Stopped\n\nThe first ready event of this file is never published.\n');
      const ready = await stream.next<{ documentId: string; status: string }>((m) => m.documentId === doc.id && m.status === 'ready', 30_000);
      expect(ready.status).toBe('ready');
      expect(stoppingBus.lost).toBe(1);
    } finally {
      stream.close();
    }
  });
});
