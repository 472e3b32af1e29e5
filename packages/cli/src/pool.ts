/**
 * Run `fn` over the items with at most `n` running at once, in order of start. A rejection stops new starts
 * and is rethrown once the running ones have settled, so no upload is left half-done in the background.
 */
export async function pool<T>(items: readonly T[], n: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const i = next++;
      try {
        await fn(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
}

/** A promise that rejects when the signal aborts (to stop waiting on Ctrl-C). */
export function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fire = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) fire();
    else signal.addEventListener('abort', fire, { once: true });
  });
}
