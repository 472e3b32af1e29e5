import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_BUS_SPEC_VERSION } from '../ports/event-bus.ts';
import type { EventBus } from '../ports/event-bus.ts';

const WAIT_MS = 5_000;

/** Collects a topic's events; `until(n)` resolves once n have arrived, or rejects after a bounded wait. */
function recorder(bus: EventBus, topic: string) {
  const events: unknown[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const unsubscribe = bus.subscribe(topic, (event) => {
    events.push(event);
    for (const w of waiters.filter((w) => events.length >= w.n)) w.resolve();
  });
  const until = (n: number): Promise<unknown[]> => {
    if (events.length >= n) return Promise.resolve(events);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`got ${events.length} of ${n} events on ${topic}`)), WAIT_MS);
      waiters.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve(events);
        },
      });
    });
  };
  return { events, until, unsubscribe };
}

/**
 * Conformance suite for EventBus adapters. `factory` returns a fresh bus per test; the suite closes it
 * after each test, so closing twice must be harmless.
 * Events are JSON-shaped, since buses that cross processes serialise them.
 */
export function eventBusSuite(name: string, factory: () => Promise<EventBus>): void {
  describe(`EventBus conformance (spec ${EVENT_BUS_SPEC_VERSION}): ${name}`, () => {
    let bus: EventBus;
    beforeEach(async () => {
      bus = await factory();
    });
    afterEach(async () => {
      await bus.close();
    });

    deliveryTests(() => bus);
    subscriptionTests(() => bus);
  });
}

function deliveryTests(get: () => EventBus): void {
  it('delivers every event of a topic in publish order', async () => {
    const r = recorder(get(), 'doc:1');
    const sent = Array.from({ length: 50 }, (_, i) => ({ seq: i, status: 'processing' }));
    for (const e of sent) await get().publish('doc:1', e);
    expect(await r.until(50)).toEqual(sent);
  });

  it('keeps order when publishes are not awaited one by one', async () => {
    const r = recorder(get(), 'run:1');
    await Promise.all(Array.from({ length: 20 }, (_, i) => get().publish('run:1', { seq: i })));
    expect((await r.until(20)).map((e) => (e as { seq: number }).seq)).toEqual([...Array(20).keys()]);
  });

  it('delivers each event to every subscriber of the topic', async () => {
    const a = recorder(get(), 't');
    const b = recorder(get(), 't');
    await get().publish('t', { n: 1 });
    expect(await a.until(1)).toEqual([{ n: 1 }]);
    expect(await b.until(1)).toEqual([{ n: 1 }]);
  });

  it('keeps topics apart', async () => {
    const a = recorder(get(), 'topic-a');
    const b = recorder(get(), 'topic-b');
    await get().publish('topic-b', { for: 'b' });
    await get().publish('topic-a', { for: 'a' });
    expect(await b.until(1)).toEqual([{ for: 'b' }]);
    expect(await a.until(1)).toEqual([{ for: 'a' }]);
  });

  it('does not replay events published before subscribing', async () => {
    await get().publish('late', { n: 1 });
    const r = recorder(get(), 'late');
    await get().publish('late', { n: 2 });
    expect(await r.until(1)).toEqual([{ n: 2 }]);
  });

  it('keeps delivering to other subscribers when one throws', async () => {
    get().subscribe('t', () => {
      throw new Error('subscriber bug');
    });
    const r = recorder(get(), 't');
    await get().publish('t', { n: 1 });
    await get().publish('t', { n: 2 });
    expect(await r.until(2)).toEqual([{ n: 1 }, { n: 2 }]);
  });
}

function subscriptionTests(get: () => EventBus): void {
  it('stops delivering to a handler after it unsubscribes', async () => {
    const leaving = recorder(get(), 't');
    const staying = recorder(get(), 't');
    await get().publish('t', { n: 1 });
    await leaving.until(1);
    leaving.unsubscribe();
    leaving.unsubscribe(); // a second call is harmless
    await get().publish('t', { n: 2 });
    await staying.until(2);
    expect(leaving.events).toEqual([{ n: 1 }]);
  });

  it('drops every subscription on close', async () => {
    const r = recorder(get(), 't');
    await get().close();
    // Publishing on a closed bus may reject; it must not deliver.
    await get()
      .publish('t', { n: 1 })
      .catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.events).toEqual([]);
  });
}
