/** A slot held in a ConcurrencyGate; release it when the work ends. */
export interface Lease {
  key: string;
  id: string;
}

/** Either a slot, or how long to wait before trying again. */
export type AcquireResult = { lease: Lease } | { lease: null; retryAfterMs: number };

/**
 * At most `cap` holders at once per key (an org's agent runs). A holder that dies without releasing loses its slot
 * when its lease expires, so a crashed node never keeps a slot for ever.
 */
export interface ConcurrencyGate {
  /** Take a slot of `key` for at most `leaseMs`, or say when one may free up (the earliest lease expiry). */
  acquire(key: string, cap: number, leaseMs: number): Promise<AcquireResult>;
  /** Give the slot back; releasing twice or after expiry is a no-op. */
  release(lease: Lease): Promise<void>;
  /** Slots of `key` held now (expired leases not counted). */
  held(key: string): Promise<number>;
  /** Release the store's connection (a no-op in memory). */
  close(): Promise<void>;
}

/** Version of the ConcurrencyGate contract that `concurrencyGateSuite` checks (major: every adapter must change; minor: more checks). */
export const CONCURRENCY_GATE_SPEC_VERSION = '1.0.0';
