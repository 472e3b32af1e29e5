import type { EventBus, Unsubscribe } from '../ports/event-bus.ts';

/** EventBus for one process: synchronous fan-out to subscribers; a throwing handler never affects others. */
export class InProcessEventBus implements EventBus {
  private readonly topics = new Map<string, Set<(event: unknown) => void>>();

  async publish(topic: string, event: unknown): Promise<void> {
    for (const handler of [...(this.topics.get(topic) ?? [])]) {
      try {
        handler(event);
      } catch {
        // A subscriber's failure is its own; delivery to the others goes on.
      }
    }
  }

  subscribe(topic: string, handler: (event: unknown) => void): Unsubscribe {
    let set = this.topics.get(topic);
    if (!set) {
      set = new Set();
      this.topics.set(topic, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0) this.topics.delete(topic);
    };
  }

  async close(): Promise<void> {
    this.topics.clear();
  }
}
