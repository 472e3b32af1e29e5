import type { McpEndpoint } from '../mcp/endpoint.ts';
import { MCP_PATH } from '../mcp/endpoint-path.ts';
import { z } from 'zod';
import { type RouteDef, route } from './define.ts';

const REFUSALS = {
  401: 'A project API key or an OAuth access token is required',
  403: "insufficient_scope (the token lacks the tool's scope; WWW-Authenticate names it), or a foreign Origin/Host",
  404: 'Session not found (start a new one with initialize)',
};

/** A JSON-RPC 2.0 message of the Model Context Protocol (its shapes are the protocol's, not this API's). */
const jsonRpcMessage = z.record(z.string(), z.unknown()).describe('A JSON-RPC 2.0 response');

/**
 * The MCP tool server over Streamable HTTP (issue 18; protocol revision 2025-11-25): the spec's 30 `svc_` tools (and the extension tools) for a
 * project API key (its sandbox, every tool) or an OAuth token (its sandbox, the tools of its scopes).
 */
export function mcpRoutes(endpoint: () => McpEndpoint): RouteDef[] {
  const common = { path: MCP_PATH, tag: 'mcp', auth: 'key-or-oauth', longRunning: true } as const;
  return [
    route({
      ...common,
      method: 'post',
      operationId: 'mcpPost',
      summary: 'JSON-RPC messages of the Model Context Protocol (initialize opens a session: Mcp-Session-Id); answers JSON or a text/event-stream',
      responses: {
        200: {
          description: 'JSON-RPC response, or (Accept: text/event-stream) a stream of JSON-RPC messages: progress notifications, then the result',
          schema: jsonRpcMessage,
        },
        202: 'Notifications and responses accepted',
        400: 'Malformed JSON-RPC, or no Mcp-Session-Id',
        ...REFUSALS,
      },
      handle: (ctx, { caller }) => endpoint().post(ctx, caller),
    }),
    route({
      ...common,
      method: 'get',
      operationId: 'mcpStream',
      summary: "The session's server-to-client SSE stream; with Last-Event-ID, the missed messages of a dropped stream first",
      responses: {
        200: { description: 'JSON-RPC messages of the session', contentType: 'text/event-stream' },
        400: 'No Mcp-Session-Id',
        405: 'The client does not accept text/event-stream',
        ...REFUSALS,
      },
      handle: (ctx, { caller }) => endpoint().get(ctx, caller),
    }),
    route({
      ...common,
      method: 'delete',
      operationId: 'mcpEndSession',
      summary: 'End the MCP session',
      responses: { 200: 'Session ended', 400: 'No Mcp-Session-Id', ...REFUSALS },
      handle: (ctx, { caller }) => endpoint().delete(ctx, caller),
    }),
  ];
}
