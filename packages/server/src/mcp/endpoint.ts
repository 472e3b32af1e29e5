import type { Logger, OAuthScope } from '@dossier/core';
import { sandboxOf } from '@dossier/core/internal';
import { createMcpServer } from '@dossier/mcp';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'koa';
import { bearer, bearerChallenge } from '../http/auth.ts';
import type { CallerOf } from '../routes/define.ts';
import { oauthUrls } from '../http/oauth-urls.ts';
import { readJson } from '../http/body.ts';
import type { InProcessApi } from './in-process.ts';
import { originRefusal } from './origin.ts';
import { refusedCall, scopeRefusal, unknownToolCall } from './scopes.ts';
import { type McpSession, mcpSessions } from './sessions.ts';

/** Who calls the endpoint, as the router hands it over (a project API key or an OAuth token). */
type McpCaller = CallerOf<'key-or-oauth'>;

/** Largest JSON-RPC body /mcp reads (tool arguments are small; the SDK's own default is 4 MiB). */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;

/** What the endpoint is built from. */
export interface McpEndpointDeps {
  /** The /v1 API in-process, as each session's caller. */
  api: InProcessApi;
  publicUrl: () => string;
  corsOrigins: readonly string[];
  version: string;
  log?: Logger;
  /** Remember that a call with this OAuth access token was refused for lacking `scope` (its next refresh steps up). */
  noteStepUp?: (accessToken: string, scope: OAuthScope) => Promise<void>;
}

/** Answer with a JSON-RPC error (the transport's own form for refusals before a session exists). */
function rpcError(ctx: Context, status: number, code: number, message: string, id: unknown = null): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id };
}

/**
 * A token without the scope of the tool it calls: 403 with the Bearer challenge (RFC 6750 §3.1; MCP authorization,
 * scope challenge), which tells the client the scope to ask the user for, and where the resource's metadata is.
 */
function insufficientScope(ctx: Context, publicUrl: string, refusal: { scope: string; description: string }, body: unknown): void {
  ctx.set('WWW-Authenticate', bearerChallenge(oauthUrls(publicUrl), { code: 'insufficient_scope', description: refusal.description, scope: refusal.scope }));
  rpcError(ctx, 403, -32003, `insufficient_scope: ${refusal.description}`, (body as { id?: unknown } | null)?.id ?? null);
}

/**
 * The Streamable HTTP endpoint (issue 18): POST carries JSON-RPC (initialize opens a session), GET opens the
 * session's server-to-client stream (or resumes one with Last-Event-ID), DELETE ends the session. The router has
 * already authenticated the caller (project API key or OAuth token); a session belongs to that caller.
 */
export function mcpEndpoint(deps: McpEndpointDeps) {
  const sessions = mcpSessions((session: McpSession) =>
    createMcpServer(
      {
        api: deps.api.as(() => session.principal),
        projectId: sandboxOf(session.principal)?.projectId ?? null,
        refusal: (tool) => scopeRefusal(session.principal, tool)?.description ?? null,
        onCall: (call) => deps.log?.info('mcp tool call', { ...call, ms: Math.round(call.ms * 10) / 10 }),
      },
      deps.version,
    ),
  );

  /** Refuse a foreign Origin or Host; true when the request may go on. */
  const fromAllowedPlace = (ctx: Context): boolean => {
    const refusal = originRefusal(ctx, deps.publicUrl(), deps.corsOrigins);
    if (refusal) rpcError(ctx, 403, -32000, `Forbidden: ${refusal}`);
    return refusal === null;
  };

  /** Hand the request to the session's transport, which writes the response itself. */
  const serve = async (ctx: Context, session: McpSession, body?: unknown): Promise<void> => {
    ctx.respond = false;
    await session.transport.handleRequest(ctx.req, ctx.res, body);
  };

  /** The caller's session named by Mcp-Session-Id, or an answer saying why there is none. */
  const sessionOf = (ctx: Context, caller: McpCaller): McpSession | null => {
    const id = ctx.get('mcp-session-id');
    if (!id) rpcError(ctx, 400, -32000, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
    const session = id ? sessions.find(id, caller) : null;
    if (id && !session) rpcError(ctx, 404, -32001, 'Session not found');
    return session;
  };

  async function post(ctx: Context, caller: McpCaller): Promise<void> {
    if (!fromAllowedPlace(ctx)) return;
    let body: unknown;
    try {
      body = await readJson(ctx, MCP_MAX_BODY_BYTES);
    } catch (err) {
      return rpcError(ctx, 400, -32700, `Parse error: ${(err as Error).message}`);
    }
    const refused = refusedCall(caller, body);
    if (refused) {
      const token = caller.kind === 'oauth' ? bearer(ctx) : null;
      if (token) await deps.noteStepUp?.(token, refused.scope).catch((err) => deps.log?.warn('step-up not recorded', { error: String(err) }));
      return insufficientScope(ctx, deps.publicUrl(), refused, body);
    }
    const unknown = unknownToolCall(body);
    if (unknown) return rpcError(ctx, 200, -32602, `Unknown tool: ${unknown.name}`, unknown.id);
    if (!ctx.get('mcp-session-id') && isInitializeRequest(body)) {
      const session = await sessions.start(caller);
      await serve(ctx, session, body);
      return sessions.discard(session);
    }
    const session = sessionOf(ctx, caller);
    if (session) await serve(ctx, session, body);
  }

  async function getOrDelete(ctx: Context, caller: McpCaller): Promise<void> {
    if (!fromAllowedPlace(ctx)) return;
    const session = sessionOf(ctx, caller);
    if (session) await serve(ctx, session);
  }

  return { post, get: getOrDelete, delete: getOrDelete, sessions };
}
export type McpEndpoint = ReturnType<typeof mcpEndpoint>;
