import { errorMessage } from '@dossier/mcp/wire';
import { CliError, missingKeyError } from './errors.ts';
import { EXIT } from './exit-codes.ts';

/** Options of one API request. */
export interface RequestOptions {
  /** A JSON body (sent with Content-Type: application/json). */
  json?: unknown;
  /** A raw body (FormData, Blob, bytes). */
  body?: RequestInit['body'];
  headers?: Record<string, string>;
  /** Query parameters; a list is sent as the parameter repeated (`tags=a&tags=b`). */
  query?: Record<string, string | number | string[] | undefined>;
  signal?: AbortSignal;
  /** Give up after this long (default 60 s; null for long-polls and streams). */
  timeoutMs?: number | null;
  /** What to tell the user when the answer is 404, e.g. which command lists valid ids. */
  notFoundHint?: string;
  /** Statuses returned to the caller instead of raised as errors. */
  allow?: number[];
  /** Send the API key (default true; false for presigned URLs, which authorise themselves). */
  auth?: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** Codes of Node's network errors, as the user should read them. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name does not resolve (DNS)',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
};

/** The deepest `cause` of an error, where undici puts the system error. */
function rootCause(err: unknown): { code?: string; message?: string } {
  let e = err as { cause?: unknown; code?: string; message?: string };
  while (e?.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e ?? {};
}

/** A thrown fetch error as a CliError (exit 4) that says what went wrong and what to check. */
export function networkError(err: unknown, url: string): CliError {
  const { origin } = new URL(url);
  const name = (err as Error)?.name;
  if (name === 'TimeoutError')
    return new CliError(`no answer from ${origin} in time`, EXIT.server, 'the server may be overloaded; try again, or run `dossier doctor`');
  const cause = rootCause(err);
  const code = cause.code ?? '';
  const reason = NETWORK_REASONS[code] ?? (/CERT|SSL|TLS/i.test(`${code} ${cause.message}`) ? `TLS failed: ${cause.message}` : (cause.message ?? String(err)));
  const hint =
    code === 'ECONNREFUSED'
      ? `is the server running? Start one with \`dossier serve\`, or point SERVICE_BASE_URL / --base-url at it; \`dossier doctor\` checks the connection`
      : 'check SERVICE_BASE_URL / --base-url; `dossier doctor` checks DNS, TLS and the connection step by step';
  return new CliError(`cannot reach ${origin}: ${reason}`, EXIT.server, hint, { cause: err });
}

/** The message, exit code and next step of an HTTP error answer. */
function describeHttpError(status: number, message: string, keySent: boolean, notFoundHint?: string, retryAfter?: string | null): CliError {
  const msg = `${message} (HTTP ${status})`;
  if (status === 401 && !keySent) return missingKeyError('the server requires an API key for this');
  if (status === 401)
    return new CliError(`the API key was rejected: ${msg}`, EXIT.auth, 'check SERVICE_API_KEY or --api-key; keys start with dsk_live_ or dsk_test_');
  if (status === 403)
    return new CliError(msg, EXIT.auth, 'the API key lacks permission for this; a test key (dsk_test_) sees only its sandbox, a live key only live data');
  if (status === 404) return new CliError(msg, EXIT.notFound, notFoundHint);
  if (status === 429) return new CliError(msg, EXIT.failure, retryAfter ? `the limit resets in ${retryAfter} s; try again then` : 'try again later');
  if (status === 413) return new CliError(msg, EXIT.failure, 'files over 25 MB go through the presigned flow: `dossier upload` does that by itself');
  if (status >= 500)
    return new CliError(
      `the server failed: ${msg}`,
      EXIT.server,
      "the server's log (JSON lines on its stderr) has the details; `dossier doctor` checks the connection",
    );
  return new CliError(msg, EXIT.failure);
}

/** An HTTP error answer as a CliError with the exit code of its status and a next step; it keeps the status and Retry-After. */
export function httpError(status: number, message: string, keySent: boolean, notFoundHint?: string, retryAfter?: string | null): CliError {
  const e = describeHttpError(status, message, keySent, notFoundHint, retryAfter);
  const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
  return new CliError(e.message, e.exitCode, e.hint, { cause: e.cause, status, ...(Number.isFinite(seconds) && seconds >= 0 ? { retryAfterS: seconds } : {}) });
}

/** A small client of the /v1 API: Bearer key, JSON in and out, and errors that say what to do next. */
export class ApiClient {
  constructor(
    /** The API address ending in /v1. */
    readonly baseUrl: string,
    readonly apiKey: string | null,
  ) {}

  /** The absolute URL of a path under /v1 (absolute URLs, such as presigned ones, are kept). */
  url(path: string, query?: RequestOptions['query']): string {
    const u = new URL(/^https?:/.test(path) ? path : `${this.baseUrl}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (Array.isArray(v)) for (const item of v) u.searchParams.append(k, item);
      else if (v !== undefined) u.searchParams.set(k, String(v));
    }
    return u.toString();
  }

  /** Send a request; a network failure or an error status (not in `allow`) becomes a CliError. */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.apiKey && opts.auth !== false) headers.authorization = `Bearer ${this.apiKey}`;
    let body = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    const timeout = opts.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : opts.timeoutMs;
    const signals = [opts.signal, timeout === null ? undefined : AbortSignal.timeout(timeout)].filter((s) => s !== undefined);
    const url = this.url(path, opts.query);
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body, signal: signals.length ? AbortSignal.any(signals) : undefined });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      throw networkError(err, url);
    }
    if (res.ok || opts.allow?.includes(res.status)) return res;
    throw httpError(res.status, await errorMessage(res), this.apiKey !== null, opts.notFoundHint, res.headers.get('retry-after'));
  }

  /** Send a request and decode its JSON answer (undefined for 204). */
  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(
        `the server answered ${method} ${path} with something that is not JSON`,
        EXIT.server,
        'is SERVICE_BASE_URL the Dossier API (ending in /v1)?',
      );
    }
  }
}
