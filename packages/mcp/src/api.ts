/** Options of one /v1 request a tool makes. */
export interface ToolRequest {
  /** A JSON body (sent with Content-Type: application/json). */
  json?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  /** The tool call's cancellation: aborting it ends the request (and a research run with it). */
  signal?: AbortSignal;
  /** Give up after this long (null for long-polls and streams). */
  timeoutMs?: number | null;
}

/**
 * What the tools call: the /v1 API, as its routes answer. `dossier mcp` passes the CLI's HTTP client (a key and a
 * base URL); the server's /mcp endpoint passes its in-process dispatcher. Both throw on an error status with the
 * API's own `{error}` message followed by `(HTTP <status>)`, which the tool reports as its `isError` text.
 */
export interface ToolApi {
  /** Send a request; an error status throws. */
  send(method: string, path: string, opts?: ToolRequest): Promise<Response>;
  /** Send a request and decode its JSON answer (undefined for 204). */
  json<T>(method: string, path: string, opts?: ToolRequest): Promise<T>;
}

/** A fetch-like function: the Web `Request` in, the Web `Response` out. */
export type FetchLike = (url: string, init: RequestInit & { signal?: AbortSignal }) => Promise<Response>;

/** The `{error}` message of an error answer, or its status text. */
export async function errorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON: fall back to the status text
  }
  return res.statusText || 'request failed';
}

/** A ToolApi over any fetch-like function and a base ending in /v1 (the server's in-process dispatcher uses it). */
export function fetchToolApi(fetchLike: FetchLike, baseUrl: string): ToolApi {
  const send = async (method: string, path: string, opts: ToolRequest = {}): Promise<Response> => {
    const url = new URL(`${baseUrl}${path}`);
    for (const [name, value] of Object.entries(opts.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.json !== undefined) headers['content-type'] = 'application/json';
    const signals = [opts.signal, typeof opts.timeoutMs === 'number' ? AbortSignal.timeout(opts.timeoutMs) : undefined].filter((s) => s !== undefined);
    const res = await fetchLike(url.toString(), {
      method,
      headers,
      body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
      signal: signals.length ? AbortSignal.any(signals) : undefined,
    });
    if (res.ok) return res;
    throw new Error(`${await errorMessage(res)} (HTTP ${res.status})`);
  };
  return {
    send,
    json: async <T>(method: string, path: string, opts?: ToolRequest): Promise<T> => {
      const res = await send(method, path, opts);
      return (res.status === 204 ? undefined : await res.json()) as T;
    },
  };
}
