/** Every failure core reports carries one of these codes; the server maps codes to HTTP statuses. */
export type DossierErrorCode =
  | 'invalid_input' // 400
  | 'unauthorized' // 401
  | 'payment_required' // 402
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'timeout' // 408
  | 'conflict' // 409
  | 'payload_too_large' // 413
  | 'unprocessable' // 422
  | 'rate_limited' // 429
  | 'unsupported_format' // document conversion: type not supported
  | 'conversion_failed' // document conversion: parser rejected the file
  | 'dimension_mismatch' // vector width differs from the collection's
  | 'missing_index' // the chunk index has no table for the collection
  | 'unavailable' // 503: a dependency is down
  | 'provider_error' // 502: a model provider failed (see retryable)
  | 'not_configured' // 400/402: a needed provider key or model is not configured
  | 'internal'; // 500

/** The one error base class of Dossier. `message` is safe to show to a client. */
export class DossierError extends Error {
  readonly code: DossierErrorCode;
  /** Whether retrying the same call may succeed (transient I/O, provider overload). */
  readonly retryable: boolean;
  /** How long the other side asked us to wait before a retry (an HTTP `retry-after`), when it said. */
  readonly retryAfterMs?: number;
  /** Set once the failure has been written to the log, so an outer layer does not log it a second time. */
  logged = false;

  constructor(code: DossierErrorCode, message: string, opts: { cause?: unknown; retryable?: boolean; retryAfterMs?: number } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'DossierError';
    this.code = code;
    this.retryable = opts.retryable ?? false;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

/** True when err is a DossierError, optionally of a given code. */
export function isDossierError(err: unknown, code?: DossierErrorCode): err is DossierError {
  return err instanceof DossierError && (code === undefined || err.code === code);
}

export const notFound = (what: string): DossierError => new DossierError('not_found', `${what} not found`);
export const invalid = (message: string): DossierError => new DossierError('invalid_input', message);
