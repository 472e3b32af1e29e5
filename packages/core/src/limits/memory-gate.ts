import { randomUUID } from 'node:crypto';
import type { AcquireResult, ConcurrencyGate, Lease } from '../ports/concurrency-gate.ts';

/** Slots held in this process: key → lease id → expiry time (ms). */
export function memoryConcurrencyGate(now: () => number = Date.now): ConcurrencyGate {
  const slots = new Map<string, Map<string, number>>();
  const live = (key: string): Map<string, number> => {
    const held = slots.get(key) ?? new Map<string, number>();
    for (const [id, expiry] of held) if (expiry <= now()) held.delete(id);
    slots.set(key, held);
    return held;
  };
  return {
    async acquire(key, cap, leaseMs): Promise<AcquireResult> {
      const held = live(key);
      if (held.size >= cap) return { lease: null, retryAfterMs: Math.max(0, Math.min(...held.values()) - now()) };
      const lease: Lease = { key, id: randomUUID() };
      held.set(lease.id, now() + leaseMs);
      return { lease };
    },
    async release(lease) {
      slots.get(lease.key)?.delete(lease.id);
    },
    held: async (key) => live(key).size,
    close: async () => {},
  };
}
