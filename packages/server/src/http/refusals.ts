/** Headers of every 429 a limit answers before the application runs (the early refusal and the connection cap). */
export function refusalHeaders(retryAfterSeconds: number): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'retry-after': String(retryAfterSeconds),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
}

/**
 * Counts refusals by kind and reports each kind's count once a second while refusals go on: a log line per refused
 * request or connection would cost what refusing early saves. `detail` is kept from a kind's first refusal of the
 * second (the early-refusal line names that request's method).
 */
export function refusalTally(report: (kind: string, count: number, detail: string) => void): (kind: string, detail?: string) => void {
  const counts = new Map<string, { count: number; detail: string }>();
  return (kind, detail = '') => {
    const first = counts.size === 0;
    const seen = counts.get(kind);
    if (seen) seen.count++;
    else counts.set(kind, { count: 1, detail });
    if (!first) return;
    setTimeout(() => {
      for (const [name, { count, detail: kept }] of counts) report(name, count, kept);
      counts.clear();
    }, 1000).unref();
  };
}
