import { isDossierError } from '../domain/errors.ts';

/** How the tool loop retries a model call that failed in a way the provider says may pass (429, 529, 5xx, a dropped connection). */
export interface RetryPolicy {
  /** Retries of one model call after its first attempt (0: never retry). */
  maxRetries: number;
  /** The first backoff step; each later one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  /** Longest wait between two attempts, unless the provider's `retry-after` asks for longer (still bounded by the run's time limit). */
  maxDelayMs: number;
}

/**
 * Four retries from 1 s with full jitter: a provider overloaded for a few seconds (Anthropic's 529) is ridden out
 * in about 15 s at worst, well inside the shortest depth's time limit.
 */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 20_000 });

/**
 * The wait before retry number `attempt` (1-based) of a failed call, or null when it must not be retried:
 * the error is not retryable, the retries are used up, or the wait would outlast `remainingMs` (the run's time
 * left). A provider's `retry-after` wins over the computed backoff; otherwise "full jitter" (a uniform draw up to
 * the exponential step), which keeps many clients of one overloaded provider from retrying in lockstep.
 */
export function retryDelay(err: unknown, attempt: number, policy: RetryPolicy, remainingMs: number, random: () => number = Math.random): number | null {
  if (!isDossierError(err) || !err.retryable || attempt > policy.maxRetries) return null;
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const wait = err.retryAfterMs !== undefined ? err.retryAfterMs : Math.round(random() * step);
  return wait < remainingMs ? wait : null;
}

/** Resolve after `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
