import { type DossierCore, type Logger, schemas } from '@dossier/core';
import Router from '@koa/router';
import Koa from 'koa';
import type { ServerConfig } from './config.ts';
import { queryObject, readJson } from './http/body.ts';
import { authenticate } from './http/auth.ts';
import { errorMiddleware } from './http/errors.ts';
import { withIdempotency } from './http/idempotency.ts';
import { accessLog, bodyIdleTimeout, corsAllowList, securityHeaders, withRequestTimeout } from './http/hardening.ts';
import type { RequestLimits } from './http/limits.ts';
import { buildOpenApi } from './openapi.ts';
import { agentRunRoutes } from './routes/agent-runs.ts';
import { agentRoutes } from './routes/agents.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { managementRoutes } from './routes/management.ts';
import { authRoutes } from './routes/auth.ts';
import { claimRoutes } from './routes/claims.ts';
import { collectionRoutes } from './routes/collections.ts';
import { contradictionRoutes } from './routes/contradictions.ts';
import type { RouteDef, RouteDeps } from './routes/define.ts';
import { documentRoutes } from './routes/documents.ts';
import { duplicateRoutes } from './routes/duplicates.ts';
import { eventRoutes } from './routes/events.ts';
import { imageRoutes } from './routes/images.ts';
import { metaRoutes } from './routes/meta.ts';
import { providerKeyRoutes } from './routes/provider-keys.ts';
import { recomputeRoutes } from './routes/recompute.ts';
import { researchRoutes } from './routes/research.ts';
import { retrievalRoutes } from './routes/retrieval.ts';
import { uploadRoutes } from './routes/uploads.ts';
import { usageRoutes } from './routes/usage.ts';
import { webhookRoutes } from './routes/webhooks.ts';

export const API_VERSION = '0.1.0';

/** Every route of the API, in matching order (fixed paths before parameterised ones). */
export function allRoutes(deps: RouteDeps): RouteDef[] {
  let openapi: unknown = null;
  const routes: RouteDef[] = [
    ...authRoutes(deps), ...managementRoutes(deps), ...collectionRoutes(deps), ...uploadRoutes(deps), ...documentRoutes(deps), ...imageRoutes(deps), ...eventRoutes(deps), ...retrievalRoutes(deps), ...researchRoutes(deps), ...providerKeyRoutes(deps), ...recomputeRoutes(deps), ...claimRoutes(deps), ...contradictionRoutes(deps), ...usageRoutes(deps), ...duplicateRoutes(deps), ...agentRoutes(deps), ...agentRunRoutes(deps), ...webhookRoutes(deps), ...apiKeyRoutes(deps),
    ...metaRoutes(deps, () => (openapi ??= buildOpenApi(routes, API_VERSION))),
  ];
  return routes;
}

/**
 * Authenticate the caller as the route declares (before the body is read), validate the body and query against the
 * route's schemas, then run its handler, within the time limit.
 */
function mount(router: Router, dossier: DossierCore, r: RouteDef, timeoutMs: number): void {
  router[r.method](r.path, async (ctx) => {
    await authenticate(dossier, ctx, r.auth, r.queryKey);
    const run = async () => {
      const body = r.body ? schemas.parseInput(r.body, await readJson(ctx, r.maxBodyBytes)) : undefined;
      const query = r.query ? schemas.parseInput(r.query, queryObject(ctx)) : undefined;
      if (r.idempotent) await withIdempotency(dossier, ctx, body, () => r.handle(ctx, { body, query }));
      else await r.handle(ctx, { body, query });
    };
    await (r.longRunning ? run() : withRequestTimeout(ctx, timeoutMs, run));
  });
}

/** The Koa application: a thin HTTP face over a DossierCore. */
export function createApp(dossier: DossierCore, config: Readonly<ServerConfig>, publicUrl: () => string, log: Logger, limits: RequestLimits): Koa {
  const app = new Koa();
  app.proxy = config.trustProxy;
  const router = new Router();
  for (const r of allRoutes({ dossier, config, publicUrl, limits })) mount(router, dossier, r, config.requestTimeoutMs);
  // Errors after the response started (e.g. writing a stream) reach Koa's 'error' event, whose default prints
  // stacks to stderr. A client closing an SSE stream or long-poll is normal; anything else goes to the JSON log.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
    log.error('response failed', { error: err.stack ?? String(err) });
  });
  // Outermost first: the log line sees the final status; limits run before any route reads a body.
  app.use(accessLog(log));
  app.use(securityHeaders);
  app.use(corsAllowList(config.corsOrigins));
  app.use(errorMiddleware(log));
  app.use(bodyIdleTimeout(config.bodyIdleTimeoutMs));
  app.use(limits.middleware);
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  return app;
}
