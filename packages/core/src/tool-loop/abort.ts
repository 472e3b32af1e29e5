import { DossierError } from '../domain/errors.ts';

/** Settle with the promise, or reject as soon as the signal aborts (the promise's own later failure is ignored). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Iterate a source until it ends or the signal aborts, whichever comes first: a provider stream that ignores
 * its signal still cannot hold a cancelled run open.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T, void, undefined> {
  const it = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const r = await raceAbort(it.next(), signal);
      if (r.done) {
        finished = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (!finished) it.return?.()?.catch(() => {});
  }
}

/** The caller's signal combined with a wall-clock limit; `timedOut()` says which one fired. */
export interface Deadline {
  signal: AbortSignal;
  timedOut(): boolean;
  /** Milliseconds until the limit fires (0 once it has). */
  remainingMs(): number;
  clear(): void;
}

export function deadline(outer: AbortSignal | undefined, timeoutMs: number): Deadline {
  const timer = new AbortController();
  const endsAt = Date.now() + timeoutMs;
  const handle = setTimeout(() => timer.abort(new DossierError('timeout', `Time limit of ${timeoutMs} ms reached`)), timeoutMs);
  return {
    signal: outer ? AbortSignal.any([outer, timer.signal]) : timer.signal,
    timedOut: () => timer.signal.aborted && !outer?.aborted,
    remainingMs: () => Math.max(0, endsAt - Date.now()),
    clear: () => clearTimeout(handle),
  };
}
