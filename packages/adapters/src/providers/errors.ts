import { DossierError, isDossierError } from '@dossier/core';

/** What an adapter knows when a provider call fails: whose call, and what must never leak into a message. */
export interface FailureContext {
  /** `Anthropic`, `OpenAI`, `Ollama`: named in every message. */
  label: string;
  /** Where the client points (named when it cannot be reached). */
  baseUrl: string;
  /** The key in use: scrubbed from any message copied from the provider. */
  apiKey?: string;
  signal?: AbortSignal;
}

/** The fields the SDKs' errors carry: an HTTP status (absent for connection and mid-stream errors) and a type. */
interface SdkErrorShape {
  name?: string;
  status?: unknown;
  status_code?: unknown;
  type?: unknown;
  code?: unknown;
  apiMessage?: unknown;
  error?: { type?: unknown; message?: unknown; error?: { type?: unknown; message?: unknown } };
  message?: unknown;
  cause?: { code?: unknown };
  /** The response headers (a Headers object in both official SDKs). */
  headers?: unknown;
}

/** The longest `retry-after` honoured; a longer one is treated as "not within this run". */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

function header(headers: unknown, name: string): string | undefined {
  if (headers && typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** The wait a provider asked for: `retry-after-ms` (Anthropic, OpenAI), else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  const ms = Number(header(headers, 'retry-after-ms'));
  const raw = header(headers, 'retry-after');
  let wait: number | undefined;
  if (header(headers, 'retry-after-ms') !== undefined && Number.isFinite(ms)) wait = ms;
  else if (raw !== undefined && raw.trim() !== '') wait = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) * 1000 : Date.parse(raw) - now;
  if (wait === undefined || !Number.isFinite(wait)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.round(wait)));
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/**
 * The provider's own words as a client may see them (issue 9: provider error text reaches API clients): the first
 * line only, at most 160 characters, without the key or anything shaped like a key or bearer token, and nothing
 * at all when it is an upstream body (HTML or JSON) rather than a message.
 */
function scrub(message: string, apiKey: string | undefined): string {
  let out = apiKey ? message.split(apiKey).join('[redacted]') : message;
  out = out.replace(/\b(sk-|sk_|key-|dsk_)[A-Za-z0-9_\-*.]{4,}/g, '[redacted]').replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]');
  const line = (out.split(/\r?\n/)[0] ?? '').trim();
  if (/[<{]/.test(line)) return '';
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

/** The reason a cancelled call rejects with: the signal's own reason, as fetch does. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

function byStatus(ctx: FailureContext, status: number, detail: string, cause: unknown): DossierError {
  const http = `(HTTP ${status}${detail ? `: ${detail}` : ''})`;
  if (status === 401 || status === 403) {
    return new DossierError('unauthorized', `${ctx.label} rejected the API key (HTTP ${status})`, { cause });
  }
  const wait = retryAfterMs((cause as SdkErrorShape | undefined)?.headers);
  const retry = wait === undefined ? {} : { retryAfterMs: wait };
  if (status === 429) return new DossierError('rate_limited', `${ctx.label} rate limit reached ${http}`, { cause, retryable: true, ...retry });
  // 5xx includes Anthropic's 529 (overloaded); 408 and 409 are the ones the official SDKs retry too.
  const retryable = status >= 500 || status === 408 || status === 409;
  return new DossierError('provider_error', `${ctx.label} request failed ${http}`, { cause, retryable, ...retry });
}

/** A failure with no HTTP status: an error event inside a stream, classified by its type. */
function byType(ctx: FailureContext, type: string | undefined, detail: string, cause: unknown): DossierError {
  const what = `${ctx.label} stream failed${type ? ` (${type}${detail ? `: ${detail}` : ''})` : detail ? ` (${detail})` : ''}`;
  if (type && /rate_limit/.test(type)) return new DossierError('rate_limited', what, { cause, retryable: true });
  if (type && /authentication|permission/.test(type)) return new DossierError('unauthorized', `${ctx.label} rejected the API key`, { cause });
  const retryable = !(type && /invalid_request|not_found/.test(type));
  return new DossierError('provider_error', what, { cause, retryable });
}

/**
 * Map any SDK failure to Dossier's contract: 401/403 unauthorized, 429 rate_limited (retryable), 5xx/overloaded/
 * connection errors provider_error retryable, other 4xx provider_error not retryable. A call cancelled by its
 * signal rejects with the signal's reason instead (cancellation is not a provider failure). Messages never carry
 * the key.
 */
export function providerFailure(ctx: FailureContext, err: unknown): unknown {
  if (ctx.signal?.aborted) return abortReason(ctx.signal);
  if (isDossierError(err)) return err;
  const e = (err ?? {}) as SdkErrorShape;
  const status = typeof e.status === 'number' ? e.status : typeof e.status_code === 'number' ? e.status_code : undefined;
  const type = str(e.type) ?? str(e.error?.type) ?? str(e.error?.error?.type) ?? str(e.code);
  const raw = str(e.apiMessage) ?? str(e.error?.message) ?? str(e.error?.error?.message) ?? str(e.message) ?? '';
  const detail = scrub(raw, ctx.apiKey);
  if (status !== undefined) return byStatus(ctx, status, detail, err);
  if (/ConnectionError/.test(e.name ?? '') || (err instanceof TypeError && /fetch failed/.test(raw))) {
    const code = str(e.cause?.code);
    return new DossierError('provider_error', `${ctx.label} at ${ctx.baseUrl} could not be reached${code ? ` (${code})` : ''}`, {
      cause: err,
      retryable: true,
    });
  }
  return byType(ctx, type, detail, err);
}

/** The error for a stream that ended before the provider said it was complete (connection dropped). */
export const incompleteStream = (label: string): DossierError =>
  new DossierError('provider_error', `${label} stream ended before the answer was complete`, { retryable: true });
