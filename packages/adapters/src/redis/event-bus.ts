import type { EventBus, Logger, Unsubscribe } from '@dossier/core';
import type { Redis } from 'ioredis';
import { importOptional } from '../optional.ts';

/**
 * EventBus over Redis pub/sub (issue 13): every node's subscribers see events any node publishes, so an SSE stream
 * on one node follows documents processed on another. One connection publishes, one subscribes (a subscribing
 * connection can do nothing else); a topic is subscribed in Redis while this node has handlers for it. A publish
 * waits for this node's pending subscriptions first, so a handler added before a publish here sees it. A failed
 * UNSUBSCRIBE goes to `log` (a process warning without one).
 */
export async function createRedisEventBus(url: string, prefix = 'dossier:', log?: Pick<Logger, 'warn'>): Promise<EventBus> {
  const { Redis: Client } = await importOptional<typeof import('ioredis')>('ioredis', 'The Redis event bus (DOSSIER_REDIS_URL)');
  const publisher: Redis = new Client(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const subscriber: Redis = new Client(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await Promise.all([publisher.connect(), subscriber.connect()]);
  const channelOf = (topic: string) => `${prefix}events:${topic}`;
  const handlers = new Map<string, Set<(event: unknown) => void>>();
  // Each topic's SUBSCRIBE (or UNSUBSCRIBE) in flight; a failed SUBSCRIBE rejects here so `settled` can say so.
  const inFlight = new Map<string, Promise<void>>();
  let closed = false;

  subscriber.on('message', (channel: string, message: string) => {
    const topic = channel.slice(`${prefix}events:`.length);
    const event = JSON.parse(message) as unknown;
    for (const handler of [...(handlers.get(topic) ?? [])]) {
      try {
        handler(event);
      } catch {
        // one subscriber's bug must not stop the others (the in-process bus behaves the same)
      }
    }
  });

  // Not a subscription failure (settled() stays quiet, the topic keeps any handlers added since): Redis goes on
  // sending the topic's messages, which find no handler here and are dropped. Said, so an operator can see it.
  const unsubscribeFailed = (topic: string, err: unknown) => {
    const message = 'Redis did not accept an UNSUBSCRIBE; this node keeps receiving the topic and drops its messages';
    if (log) log.warn(message, { topic, error: String(err) });
    else process.emitWarning(`${message} (${topic}): ${String(err)}`);
  };

  const track = (topic: string, command: Promise<unknown>) => {
    const done = command.then(() => undefined);
    inFlight.set(topic, done);
    const forget = () => {
      if (inFlight.get(topic) === done) inFlight.delete(topic);
    };
    done.then(forget, () => {
      // A failed SUBSCRIBE: drop the topic's handlers so the next subscribe asks Redis again.
      forget();
      handlers.delete(topic);
    });
  };

  return {
    async publish(topic, event) {
      if (closed) throw new Error('The event bus is closed');
      await Promise.allSettled(inFlight.values());
      await publisher.publish(channelOf(topic), JSON.stringify(event));
    },
    subscribe(topic, handler): Unsubscribe {
      let set = handlers.get(topic);
      if (!set) {
        set = new Set();
        handlers.set(topic, set);
        track(topic, subscriber.subscribe(channelOf(topic)));
      }
      set.add(handler);
      return () => {
        const current = handlers.get(topic);
        if (!current?.delete(handler) || current.size > 0) return;
        handlers.delete(topic);
        if (!closed)
          track(
            topic,
            subscriber.unsubscribe(channelOf(topic)).catch((err: unknown) => unsubscribeFailed(topic, err)),
          );
      };
    },
    /** Rejects when a subscription made so far was not acknowledged by Redis (its stream would receive nothing). */
    async settled() {
      const outcomes = await Promise.allSettled(inFlight.values());
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed) throw new Error(`Redis did not accept a subscription: ${String(failed.reason)}`);
    },
    async close() {
      if (closed) return;
      closed = true;
      handlers.clear();
      await Promise.allSettled([subscriber.quit(), publisher.quit()]);
    },
  };
}
