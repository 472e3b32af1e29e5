import type { DossierCore } from '@dossier/core';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { ServerConfig } from '../config.ts';
import type { RequestLimits } from '../http/limits.ts';

/** How a route authenticates (documented in the OpenAPI document). */
export type AuthMode = 'key' | 'key-or-public' | 'jwt' | 'jwt-or-key' | 'jwt-or-org-key' | 'none' | 'upload-url';

/** One HTTP route, declared as data so the router and the OpenAPI document come from the same list. */
export interface RouteDef {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  tag: string;
  /** Who may call it: enforced by the router before the body is read (http/auth.ts AUTH_RULES). */
  auth: AuthMode;
  /** Also accept the API key as `?key=` (event streams: a browser EventSource cannot set headers). */
  queryKey?: true;
  /** A creating route that honours `Idempotency-Key` (http/idempotency.ts). */
  idempotent?: true;
  /** JSON body schema (validated before the handler runs). */
  body?: z.ZodType;
  /** Query-string schema. */
  query?: z.ZodType;
  /** Largest JSON body (default 1 MB; bulk routes take more). */
  maxBodyBytes?: number;
  /** Non-JSON request body, for the OpenAPI document. */
  bodyType?: 'multipart/form-data' | 'application/octet-stream';
  /** Status codes and descriptions of the responses. */
  responses: Record<number, string>;
  /**
   * Streams, long-polls, research and file uploads: exempt from the request timeout (they bound their own time;
   * their bodies still get the idle timeout).
   */
  longRunning?: true;
  /** Produces the response: sets ctx.status and ctx.body. */
  handle: (ctx: Context, input: { body: unknown; query: unknown }) => Promise<void>;
}

/** What route modules are built from. */
export interface RouteDeps {
  dossier: DossierCore;
  config: Readonly<ServerConfig>;
  /** Base address used in presigned upload URLs (known once the server listens). */
  publicUrl: () => string;
  /** Rate limits and login throttling of this server. */
  limits: RequestLimits;
}

/** Respond with JSON and a status. */
export function send(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
}

/** Respond 204 with no body. */
export function noContent(ctx: Context): void {
  ctx.status = 204;
  ctx.body = null;
}
