import type { IncomingMessage, ServerResponse } from 'node:http';
import { memoryRateLimiters } from '@dossier/adapters';
import { type Dossier, type Logger, type OAuthScope, type Principal, schemas, silentLogger } from '@dossier/core';
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { loadConfig, type ServerConfig } from './config.ts';
import { listKeys, queryInput, readJson } from './http/body.ts';
import { authenticate, callerFor, giveHostPrincipal } from './http/auth.ts';
import { authorizeRole, checkRoleDeclaration } from './http/roles.ts';
import { oauthUrls } from './http/oauth-urls.ts';
import { errorMiddleware } from './http/errors.ts';
import { withIdempotency } from './http/idempotency.ts';
import { accessLog, bodyIdleTimeout, corsAllowList, securityHeaders, withRequestTimeout } from './http/hardening.ts';
import { type RequestLimits, requestLimits } from './http/limits.ts';
import { type McpEndpoint, mcpEndpoint } from './mcp/endpoint.ts';
import { MCP_PATH } from './mcp/endpoint-path.ts';
import { attachedPrincipal, inProcessApi } from './mcp/in-process.ts';
import { buildOpenApi } from './openapi.ts';
import { agentRunRoutes } from './routes/agent-runs.ts';
import { agentRoutes } from './routes/agents.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { managementRoutes } from './routes/management.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { authRoutes } from './routes/auth.ts';
import { claimRoutes } from './routes/claims.ts';
import { collectionRoutes } from './routes/collections.ts';
import { connectedClientRoutes } from './routes/connected-clients.ts';
import { contradictionRoutes } from './routes/contradictions.ts';
import { type RouteDef, type RouteDeps, send } from './routes/define.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { dashboardStatic } from './http/dashboard-static.ts';
import { documentRoutes } from './routes/documents.ts';
import { duplicateRoutes } from './routes/duplicates.ts';
import { evaluationRoutes } from './routes/evaluations.ts';
import { eventRoutes } from './routes/events.ts';
import { imageRoutes } from './routes/images.ts';
import { pageImageRoutes } from './routes/page-images.ts';
import { metaRoutes } from './routes/meta.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { providerKeyRoutes } from './routes/provider-keys.ts';
import { recomputeRoutes } from './routes/recompute.ts';
import { researchRoutes } from './routes/research.ts';
import { retrievalRoutes } from './routes/retrieval.ts';
import { uploadRoutes } from './routes/uploads.ts';
import { usageRoutes } from './routes/usage.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { syncRoutes } from './routes/sync.ts';
import type { PeopleOptions } from './people/config.ts';
import { peopleRoutes } from './routes/people.ts';
import { peoplePageRoutes } from './routes/people-pages.ts';
import { ssoRoutes } from './routes/sso.ts';
import { sourceRoutes } from './routes/sources.ts';

export const API_VERSION = '0.1.0';

/** Every route of the API, in matching order (fixed paths before parameterised ones). */
export function allRoutes(deps: RouteDeps): RouteDef[] {
  let openapi: ReturnType<typeof buildOpenApi> | null = null;
  const routes: RouteDef[] = [
    ...authRoutes(deps),
    ...managementRoutes(deps),
    ...collectionRoutes(deps),
    ...uploadRoutes(deps),
    ...documentRoutes(deps),
    ...imageRoutes(deps),
    ...eventRoutes(deps),
    ...retrievalRoutes(deps),
    ...researchRoutes(deps),
    ...providerKeyRoutes(deps),
    ...recomputeRoutes(deps),
    ...claimRoutes(deps),
    ...contradictionRoutes(deps),
    ...usageRoutes(deps),
    ...duplicateRoutes(deps),
    ...agentRoutes(deps),
    ...agentRunRoutes(deps),
    ...webhookRoutes(deps),
    ...apiKeyRoutes(deps),
    ...oauthRoutes(deps),
    ...connectedClientRoutes(deps),
    ...dashboardRoutes(deps),
    ...pageImageRoutes(deps),
    ...syncRoutes(deps),
    ...peopleRoutes(deps),
    ...peoplePageRoutes(deps),
    ...ssoRoutes(deps),
    ...sourceRoutes(deps),
    ...evaluationRoutes(deps),
    ...mcpRoutes(deps.mcp ?? notWired),
    ...metaRoutes(deps, () => (openapi ??= buildOpenApi(routes, API_VERSION, deps.publicUrl() || '/'))),
  ];
  return routes;
}

/** Route lists built only to be read (the OpenAPI document, the matrix test) have no MCP endpoint behind them. */
const notWired = (): McpEndpoint => {
  throw new Error('the MCP routes were listed without an endpoint (createApp wires one)');
};

/**
 * Authenticate the caller as the route declares and check the role it declares (both before the body is read), turn
 * the principal into the caller the route's mode gives its handler, validate the body and query against the route's
 * schemas, then run its handler, within the time limit.
 */
function mount(router: Router, dossier: Dossier, r: RouteDef, timeoutMs: number, publicUrl: () => string): void {
  checkRoleDeclaration(r);
  const lists = r.query ? listKeys(r.query) : new Set<string>();
  router[r.method](r.path, async (ctx) => {
    const principal = await authenticate(dossier, ctx, r.auth, { queryKey: r.queryKey, urls: oauthUrls(publicUrl()) });
    await authorizeRole(dossier, ctx, r, principal);
    const caller = callerFor(r.auth, principal);
    const run = async () => {
      const body = r.body ? schemas.parseInput(r.body, await readJson(ctx, r.maxBodyBytes)) : undefined;
      const query = r.query ? schemas.parseInput(r.query, queryInput(ctx, lists)) : undefined;
      const input = { caller, body, query, reply: (status: number, value: unknown) => send(ctx, status, value) };
      if (r.idempotent) await withIdempotency(dossier, ctx, principal, body, () => r.handle(ctx, input));
      else await r.handle(ctx, input);
    };
    await (r.longRunning ? run() : withRequestTimeout(ctx, timeoutMs, run));
  });
}

/**
 * Errors after the response started (e.g. writing a stream) reach Koa's 'error' event, whose default prints stacks
 * to stderr. A client closing an SSE stream or long-poll is normal; anything else goes to the JSON log.
 */
function logResponseErrors(app: Koa, log: Logger): void {
  app.on('error', (err: NodeJS.ErrnoException) => {
    // HPE_INVALID_EOF_STATE: the client closed its side before the body it announced was complete (a cancelled upload).
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.code === 'HPE_INVALID_EOF_STATE') return;
    log.error('response failed', { error: err.stack ?? String(err) });
  });
}

/** The router without the network's middleware (limits, CORS, access log): where MCP tool calls are dispatched. */
function inProcessApp(router: Router, log: Logger): Koa {
  const app = new Koa();
  logResponseErrors(app, log);
  app.use(errorMiddleware(log));
  app.use(attachedPrincipal);
  app.use(router.routes());
  return app;
}

/**
 * Resolves the caller of a request when the host application authenticates it itself (its own auth in front,
 * Dossier's access rules behind): return a Principal to act as it, or undefined to let Dossier read the request's
 * own credentials (an API key or a session token). `hostState` is the host Koa context's `ctx.state` when the API
 * is mounted with `middleware`, undefined through `handler`.
 */
export type PrincipalResolver = (
  req: IncomingMessage,
  hostState: Record<string, unknown> | undefined,
) => Principal | undefined | Promise<Principal | undefined>;

/** How the HTTP face is built; everything is optional for an app that mounts the API inside its own server. */
export interface AppOptions {
  /** Server settings (default: the documented defaults, without reading the environment). */
  config?: Readonly<ServerConfig>;
  /** Base address of the API as clients reach it, for presigned upload URLs (default: the mount prefix, a relative URL). */
  publicUrl?: () => string;
  log?: Logger;
  /** Rate limits and login throttles (default: in-process limits from config). */
  limits?: RequestLimits;
  /** Serve the API under this path prefix, e.g. `/search` → `/search/v1/collections` (default: none). */
  prefix?: string;
  /** Supply the caller's principal from the host's own authentication (see PrincipalResolver). */
  principal?: PrincipalResolver;
  /**
   * Test-only: the principal of /mcp requests that carry no credentials (read per request; null: none), for clients
   * that cannot log in (the MCP conformance suite). Never set by configuration.
   */
  mcpPrincipal?: () => Principal | null;
  /**
   * Serve the dashboard (issue 34) at `/` beside the API: `true` for the build in packages/web/dist, or the folder
   * of a build. Only without a prefix: the dashboard calls the API at `/v1`. Default: off.
   */
  dashboard?: boolean | { dir: string };
  /** How people sign in (passwords, SSO providers) and whether links are e-mailed (issue 42; default: passwords, no mail). */
  people?: PeopleOptions;
}

/** The API as a Koa application and as handlers another server mounts. */
export interface DossierApp {
  /** The Koa application (paths without the prefix). */
  readonly koa: Koa;
  /**
   * A Node HTTP handler: answers requests under the prefix, and calls `next` for any other (404 without one).
   * Mount it before anything that reads request bodies.
   */
  handler(req: IncomingMessage, res: ServerResponse, next?: () => void): Promise<void>;
  /** Koa middleware for a host Koa app: requests under the prefix are answered, others pass to `next`. */
  middleware: Middleware;
  /** The MCP endpoint (its sessions end when the server stops: `mcp.sessions.closeAll()`). */
  readonly mcp: McpEndpoint;
}

/** The request path with the mount prefix removed, or null when the request is not under it. */
function unprefixed(url: string, prefix: string): string | null {
  if (!prefix) return url;
  if (url !== prefix && !url.startsWith(`${prefix}/`) && !url.startsWith(`${prefix}?`)) return null;
  const rest = url.slice(prefix.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** The Koa application: a thin HTTP face over a Dossier, which any Node HTTP server (or Koa app) can mount. */
export function createApp(dossier: Dossier, opts: AppOptions = {}): DossierApp {
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const config = opts.config ?? loadConfig([], {});
  const log = opts.log ?? silentLogger;
  const limits = opts.limits ?? requestLimits(memoryRateLimiters(), config, log);
  const hostStates = new WeakMap<IncomingMessage, Record<string, unknown>>();
  const supplied = opts.principal;
  const callerOf = supplied && (async (req: IncomingMessage) => supplied(req, hostStates.get(req)));
  if (opts.dashboard && prefix) throw new Error('createApp: the dashboard is served only without a prefix (it calls the API at /v1)');
  const dashboard = opts.dashboard ? (opts.dashboard === true ? {} : opts.dashboard) : null;
  const { koa, mcp } = koaApp(
    dossier,
    { config, publicUrl: opts.publicUrl ?? (() => prefix), log, limits, mcpPrincipal: opts.mcpPrincipal, dashboard, people: opts.people },
    callerOf,
  );
  const callback = koa.callback();
  const handler = async (req: IncomingMessage, res: ServerResponse, next?: () => void) => {
    const path = unprefixed(req.url ?? '/', prefix);
    if (path === null) {
      if (next) return next();
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    req.url = path;
    if (!limits.refuseEarly(req, res)) await callback(req, res);
  };
  const middleware: Middleware = async (ctx, next) => {
    if (unprefixed(ctx.url, prefix) === null) return next();
    ctx.respond = false; // the API writes the response itself
    hostStates.set(ctx.req, ctx.state);
    await handler(ctx.req, ctx.res);
  };
  return { koa, handler, middleware, mcp };
}

type KoaAppOptions = Required<Pick<AppOptions, 'config' | 'publicUrl' | 'log' | 'limits'>> &
  Pick<AppOptions, 'mcpPrincipal' | 'people'> & { dashboard: { dir?: string } | null };

/** The Koa application itself (middleware outermost first, then the routes) and its MCP endpoint. */
function koaApp(dossier: Dossier, opts: KoaAppOptions, callerOf?: (req: IncomingMessage) => Promise<Principal | undefined>): { koa: Koa; mcp: McpEndpoint } {
  const { config, publicUrl, log, limits } = opts;
  const app = new Koa();
  app.proxy = config.trustProxy;
  const inProcess = inProcessApi();
  const noteStepUp = (token: string, scope: OAuthScope) => dossier.oauth.noteStepUp(token, scope);
  const mcp = mcpEndpoint({ api: inProcess, publicUrl, corsOrigins: config.corsOrigins, version: API_VERSION, log, noteStepUp });
  const router = new Router();
  for (const r of allRoutes({ dossier, config, publicUrl, limits, mcp: () => mcp, people: opts.people, dashboard: opts.dashboard !== null }))
    mount(router, dossier, r, config.requestTimeoutMs, publicUrl);
  inProcess.attach(inProcessApp(router, log).callback());
  logResponseErrors(app, log);
  // Outermost first: the log line sees the final status; limits run before any route reads a body.
  app.use(accessLog(log));
  app.use(securityHeaders);
  app.use(corsAllowList(config.corsOrigins));
  app.use(errorMiddleware(log));
  if (opts.dashboard) app.use(dashboardStatic(opts.dashboard.dir)); // before the limits: its files are not API calls
  app.use(bodyIdleTimeout(config.bodyIdleTimeoutMs));
  if (callerOf) {
    // Before the limits: a host-supplied caller is limited as a key would be, by its identity.
    app.use(async (ctx, next) => {
      const caller = await callerOf(ctx.req);
      if (caller) giveHostPrincipal(ctx, caller);
      await next();
    });
  }
  app.use(limits.middleware);
  if (opts.mcpPrincipal) app.use(fixedMcpPrincipal(opts.mcpPrincipal));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  return { koa: app, mcp };
}

/** Test-only: /mcp requests without credentials act as `principal` (AppOptions.mcpPrincipal). */
function fixedMcpPrincipal(principal: () => Principal | null): Koa.Middleware {
  return async (ctx, next) => {
    const fixed = ctx.path === MCP_PATH && !ctx.get('authorization') ? principal() : null;
    if (fixed) ctx.state.givenPrincipal = fixed;
    await next();
  };
}
