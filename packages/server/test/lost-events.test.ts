import { type EventBus, InProcessEventBus } from '@dossier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';

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

let t: TestServer;
const bus = new DroppingBus();
beforeAll(async () => {
  t = await startTestServer({ adapters: { events: bus } });
});
afterAll(async () => {
  await t?.close();
});

describe('a document event that is lost', () => {
  it('still lets a wait answer once the document is ready, by reading it again', async () => {
    const collection = await t.createCollection({ name: 'lossy' });
    const doc = await t.upload(collection.id, 'lossy.md', '# Lossy\n\nNo event about this file arrives.\n');
    const done = await t.waitDone(doc.id);
    expect(done.status).toBe('ready');
    expect(bus.dropped).toBeGreaterThan(0);
  });
});
