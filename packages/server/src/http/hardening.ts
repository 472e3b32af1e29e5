import cors from '@koa/cors';
import type { Logger } from '@dossier/core';
import type { Context, Middleware, Next } from 'koa';
import { routeOf } from './errors.ts';

/**
 * API responses are never cached by a browser or proxy and never sniffed into another type. A route with its own
 * caching rules (document images) sets Cache-Control itself, which replaces this default.
 */
export async function securityHeaders(ctx: Context, next: Next): Promise<void> {
  ctx.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
  await next();
}

/** Cross-origin access for the configured origins only; with none configured, no CORS header is ever sent. */
export function corsAllowList(origins: readonly string[]): Middleware {
  const any = origins.includes('*');
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return origin && (any || origins.includes(origin)) ? origin : '';
    },
    allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposeHeaders: ['Retry-After', 'X-Dossier-Reranker'],
    keepHeadersOnError: true,
    maxAge: 600,
  });
}

/**
 * One line per request: method, the route's pattern (never the raw path or query string, which may hold a `?key=`
 * or ids), status, milliseconds and the API key id when one authenticated the request. Never a secret.
 */
export function accessLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const line = {
        method: ctx.method,
        route: routeOf(ctx),
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        keyId: (ctx.state.keyId as string | undefined) ?? null,
      };
      // After the error middleware has set the final status; a response cut by a timeout logs its 408.
      log.info('request', line);
    }
  };
}

/**
 * Disconnect a client that goes silent for `idleMs` while sending its body (a body trickled one byte at a time
 * would otherwise hold a connection for ever). The limit ends when the body is complete or the response is sent.
 */
export function bodyIdleTimeout(idleMs: number): Middleware {
  return async (ctx, next) => {
    const req = ctx.req;
    if (!req.complete) {
      const clear = () => {
        if (req.socket) req.setTimeout(0);
      };
      req.setTimeout(idleMs, () => {
        req.socket.destroy();
      });
      req.once('end', clear);
      ctx.res.once('close', clear);
    }
    await next();
  };
}

/**
 * Answer 408 and close the connection when a non-streaming request (body included) takes longer than `ms`.
 * The handler keeps running to its end, but nothing it sends reaches the client.
 */
export async function withRequestTimeout(ctx: Context, ms: number, run: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    const winner = await Promise.race([run().then(() => 'done' as const), expired]);
    if (winner === 'timeout') {
      ctx.status = 408;
      ctx.body = { error: `The request did not complete within ${Math.round(ms / 1000)} s` };
      ctx.set('Connection', 'close');
      ctx.res.once('finish', () => ctx.req.socket.destroy());
    }
  } finally {
    clearTimeout(timer);
  }
}
