import type { IncomingMessage, RequestListener } from 'node:http';
import { Readable } from 'node:stream';
import type { Principal } from '@dossier/core';
import { type FetchLike, fetchToolApi, type ToolApi } from '@dossier/mcp';
import type { Context, Next } from 'koa';
import { inject } from 'light-my-request';

/**
 * The MCP tools' calls, served in-process (issue 18). A tool is a thin call of a /v1 route (one table for stdio and
 * HTTP, packages/mcp); over HTTP the call is injected into this server's own router as a request object — no socket,
 * no credential — with the caller's principal attached, so validation, access checks, metering and the error
 * messages are the routes' own, and a tool's `isError` text is the API's. Only this module attaches principals,
 * and only to requests it creates, so nothing from the network can carry one.
 */
const principals = new WeakMap<IncomingMessage, Principal>();

/** Middleware of the in-process app: the principal the dispatcher attached, for the router's gate (http/auth.ts). */
export async function attachedPrincipal(ctx: Context, next: Next): Promise<void> {
  const principal = principals.get(ctx.req);
  if (principal) ctx.state.givenPrincipal = principal;
  await next();
}

/** Statuses whose responses have no body (the Web Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** Injected requests have a stand-in socket; SSE routes tune their socket, which here is a no-op. */
function withSocketStandIns(req: IncomingMessage): void {
  const socket = req.socket as unknown as Record<string, unknown>;
  for (const name of ['setTimeout', 'setNoDelay', 'setKeepAlive']) socket[name] ??= () => socket;
}

/** A fetch-like function that runs each request through `handler` as `principal()` (read per request). */
function injectingFetch(handler: () => RequestListener, principal: () => Principal): FetchLike {
  return async (url, init) => {
    const target = new URL(url);
    const dispatch: RequestListener = (req, res) => {
      principals.set(req, principal());
      withSocketStandIns(req);
      handler()(req, res);
    };
    const res = await inject(dispatch, {
      method: (init.method ?? 'GET') as 'GET',
      url: `${target.pathname}${target.search}`,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      payload: typeof init.body === 'string' ? init.body : undefined,
      payloadAsStream: true,
      signal: init.signal,
    });
    // A cancelled tool call closes the response as a disconnecting client would: streams and long-polls stop.
    init.signal?.addEventListener('abort', () => res.raw.res.destroy(), { once: true });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
    const body = NO_BODY.has(res.statusCode) ? null : (Readable.toWeb(res.stream()) as ReadableStream<Uint8Array>);
    return new Response(body, { status: res.statusCode, headers });
  };
}

/** The /v1 API as the tools see it, for one caller, dispatched in-process; attach the router's handler once built. */
export function inProcessApi() {
  let handler: RequestListener | null = null;
  const current = (): RequestListener => {
    if (!handler) throw new Error('the in-process API was used before the router was attached');
    return handler;
  };
  return {
    attach(listener: RequestListener): void {
      handler = listener;
    },
    /** The API for a caller whose principal may change between calls (a refreshed token with other scopes). */
    as(principal: () => Principal): ToolApi {
      return fetchToolApi(injectingFetch(current, principal), 'http://in-process/v1');
    },
  };
}
export type InProcessApi = ReturnType<typeof inProcessApi>;
