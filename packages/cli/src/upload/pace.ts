import { CliError } from '../errors.ts';

/** Statuses that mean "the server is busy, come back": the request was not processed. */
const BUSY = new Set([429, 503]);

/** Longest wait before retrying a busy answer, and how many times one file is retried. */
const MAX_BACKOFF_MS = 30_000;
export const MAX_BUSY_RETRIES = 12;

/** Whether an error is the server asking to slow down (429 or 503). */
export const isBusy = (err: unknown): err is CliError => err instanceof CliError && err.status !== undefined && BUSY.has(err.status);

/** How long to wait after the n-th busy answer (n from 1): the server's Retry-After, else 250 ms doubling, jittered. */
export function busyDelayMs(err: CliError, n: number, random = Math.random): number {
  if (err.retryAfterS !== undefined) return Math.min(MAX_BACKOFF_MS, err.retryAfterS * 1000) * (1 + random() * 0.2);
  const capped = Math.min(MAX_BACKOFF_MS, 250 * 2 ** (n - 1));
  return capped / 2 + (random() * capped) / 2;
}

/**
 * Uploads in flight follow the server's pace (additive increase, multiplicative decrease, as TCP does): each
 * success lets one more upload start, up to `max`; each busy answer (429/503) halves how many may run, down to one.
 */
export class Pace {
  private active = 0;
  private limit: number;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly max: number,
    /** Told of each busy answer: its status, the wait before the retry, and the uploads now allowed at once. */
    private readonly onBusy: (status: number, waitMs: number, allowed: number) => void = () => {},
  ) {
    this.limit = max;
  }

  /** Uploads allowed at once right now. */
  get allowed(): number {
    return Math.max(1, Math.floor(this.limit));
  }

  async acquire(): Promise<void> {
    while (this.active >= this.allowed) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active++;
  }

  release(busy: boolean): void {
    this.active--;
    this.limit = busy ? Math.max(1, this.limit / 2) : Math.min(this.max, this.limit + 1 / this.limit);
    // Woken waiters check again for room before they take a slot.
    for (let free = this.allowed - this.active; free > 0 && this.waiters.length > 0; free--) this.waiters.shift()?.();
  }

  /** Run `fn` in a slot; a busy answer gives the slot back, waits as the server asks, and tries again. */
  async run<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    for (let n = 1; ; n++) {
      await this.acquire();
      try {
        const out = await fn();
        this.release(false);
        return out;
      } catch (err) {
        this.release(isBusy(err));
        if (!isBusy(err) || n > MAX_BUSY_RETRIES) throw err;
        const wait = busyDelayMs(err, n);
        this.onBusy(err.status ?? 0, wait, this.allowed);
        await sleep(wait, signal);
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
