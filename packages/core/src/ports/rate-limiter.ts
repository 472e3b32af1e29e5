/** A limit of `points` per `durationMs`, with an optional burst reserve on top (refilled over ten windows). */
export interface RateSpec {
  points: number;
  durationMs: number;
  /** Extra points a key may spend in a burst once the window's points are used up (0: none). */
  burst: number;
}

/** The outcome of spending points: allowed or not, and how long until the key can spend again. */
export interface RateDecision {
  allowed: boolean;
  /** Points left in the current window (0 when refused). */
  remaining: number;
  /** Milliseconds until the window resets (the HTTP `Retry-After` when refused). */
  retryAfterMs: number;
}

/** Counts points per key against one RateSpec. Adapters share the count between nodes when their store is shared. */
export interface RateLimiter {
  /** Spend `points` (default 1) for `key`; a refused spend still counts, so a hammering client stays refused. */
  consume(key: string, points?: number): Promise<RateDecision>;
  /** Whether `key` could spend one point now, without spending it. */
  peek(key: string): Promise<RateDecision>;
  /** Forget `key` (a successful login clears its failure count). */
  reset(key: string): Promise<void>;
}

/** Builds one limiter per named limit; the name keeps limits with the same keys apart in a shared store. */
export interface RateLimiterFactory {
  /** A limiter for `spec`, its keys stored under `name`. */
  create(name: string, spec: RateSpec): RateLimiter;
  /** Release the store's connection (a no-op in memory). */
  close(): Promise<void>;
}

/** Version of the RateLimiterFactory contract that `rateLimiterSuite` checks (major: every adapter must change; minor: more checks). */
export const RATE_LIMITER_SPEC_VERSION = '1.0.0';
