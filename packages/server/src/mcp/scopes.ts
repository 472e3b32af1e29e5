import type { OAuthScope, Principal } from '@dossier/core';
import { hasScope } from '@dossier/core/internal';
import { TOOLS, type ToolDef } from '@dossier/mcp';

const TOOL_BY_NAME: ReadonlyMap<string, ToolDef> = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** A tool the caller's OAuth token may not call: the scope it needs and why (null: it may; API keys may call all). */
export function scopeRefusal(principal: Principal, tool: ToolDef): { scope: OAuthScope; description: string } | null {
  if (principal.kind !== 'oauth' || hasScope(principal, tool.scope)) return null;
  return { scope: tool.scope, description: `${tool.name} needs the ${tool.scope} scope; this token grants ${principal.scopes.join(' ') || 'no scope'}` };
}

/** The first `tools/call` of a JSON-RPC body (one message or a batch) that the caller may not make. */
export function refusedCall(principal: Principal, body: unknown): { scope: OAuthScope; description: string } | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method !== 'tools/call') continue;
    const tool = TOOL_BY_NAME.get(String(call.params?.name));
    const refusal = tool ? scopeRefusal(principal, tool) : null;
    if (refusal) return refusal;
  }
  return null;
}

/**
 * A `tools/call` of a tool this server does not have (single message). The MCP tools specification lists unknown
 * tools among protocol errors (-32602), while the SDK's McpServer answers them as an `isError` result.
 */
export function unknownToolCall(body: unknown): { name: string; id: unknown } | null {
  const call = body as { method?: unknown; id?: unknown; params?: { name?: unknown } } | null;
  if (Array.isArray(body) || call?.method !== 'tools/call' || TOOL_BY_NAME.has(String(call.params?.name))) return null;
  return { name: String(call.params?.name), id: call.id ?? null };
}
