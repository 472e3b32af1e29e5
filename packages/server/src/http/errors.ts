import { type DossierErrorCode, isDossierError } from '@dossier/core';
import type { Context, Next } from 'koa';
import type { Logger } from '@dossier/core';

/** HTTP status of each core error code (spec: Errors). Only the server chooses statuses. */
const STATUS: Record<DossierErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  unsupported_format: 422,
  conversion_failed: 422,
  dimension_mismatch: 400,
  missing_index: 500,
  unavailable: 503,
  // A model provider is a dependency: its failure is the spec's 503, with the adapter's message (never the key).
  provider_error: 503,
  not_configured: 400,
  internal: 500,
};

/** The matched route pattern (never the raw path, which may carry ids or an upload token). */
export const routeOf = (ctx: Context): string => (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? '(no route)';

/** Turn every thrown error into `{error}` with the spec's status; internal details go to the log only. */
export function errorMiddleware(log: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.respond !== false && ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: `No route for ${ctx.method} ${ctx.path}` };
      }
    } catch (err) {
      if (ctx.req.destroyed && (err as NodeJS.ErrnoException).code === 'ECONNRESET') {
        // The client went away mid-request (a cancelled upload, or the body idle timeout): nothing to answer or alarm.
        log.info('client disconnected', { method: ctx.method, route: routeOf(ctx) });
        ctx.status = 499;
        return;
      }
      if (isDossierError(err) && (STATUS[err.code] < 500 || err.code === 'provider_error')) {
        ctx.status = STATUS[err.code];
        ctx.body = { error: err.message };
        // spec: Errors, 429 — Retry-After tells when the limit resets (whole seconds, at least 1).
        if (err.code === 'rate_limited' && err.retryAfterMs !== undefined) ctx.set('Retry-After', String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))));
        // Core logs the failures it reports (a failed research run, once); the rest are logged here.
        if (err.code === 'provider_error' && !err.logged) log.warn('model provider failed', { method: ctx.method, route: routeOf(ctx), error: err.message });
        return;
      }
      log.error('request failed', { method: ctx.method, route: routeOf(ctx), error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      ctx.status = isDossierError(err) ? STATUS[err.code] : 500;
      ctx.body = { error: ctx.status === 503 ? 'Service degraded: a dependency is unavailable' : 'Internal server error' };
    }
  };
}
