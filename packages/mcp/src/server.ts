import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolApi } from './api.ts';
import { CLAIM_TOOLS } from './claim-tools.ts';
import { COLLECTION_TOOLS } from './collection-tools.ts';
import type { ToolContext, ToolDef } from './define.ts';
import { DOCUMENT_TOOLS } from './document-tools.ts';
import { EVALUATION_TOOLS } from './evaluation-tools.ts';
import { RETRIEVAL_TOOLS } from './retrieval-tools.ts';

/**
 * Tools beyond the spec's table (docs/mcp.md, "Extension tools"): the read-only evaluation tools of issue 38. The test
 * holds TOOLS equal to the spec's table plus exactly these.
 */
export const EXTENSION_TOOL_NAMES: readonly string[] = EVALUATION_TOOLS.map((tool) => tool.name);

/** Every `svc_` tool: the spec's table, then the extension tools (the test checks the names against both lists). */
export const TOOLS: readonly ToolDef[] = [...RETRIEVAL_TOOLS, ...CLAIM_TOOLS, ...COLLECTION_TOOLS, ...DOCUMENT_TOOLS, ...EVALUATION_TOOLS];

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Progress notifications for a call whose caller sent a progressToken; a no-op otherwise. */
function progressOf(extra: Extra): ToolContext['progress'] {
  const token = extra._meta?.progressToken;
  let sent = 0;
  return async (message, at) => {
    if (token === undefined || extra.signal.aborted) return;
    sent += 1;
    const value = at ?? { progress: sent };
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, message, ...value } }).catch(() => undefined);
  };
}

/** A tool's answer as an MCP result: data as structuredContent (and its JSON as text), Markdown as text. */
function toResult(value: Record<string, unknown> | string): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** A failure as an `isError` result the model can read: the API's own message (with its status), never a stack. */
function toError(err: unknown): CallToolResult {
  const message = err instanceof Error ? err.message : String(err);
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** What the tools call: the /v1 API as one caller, and the project new collections belong to. */
export interface McpBackend {
  api: ToolApi;
  projectId: string | null;
  /** Why this caller may not call the tool (an OAuth token without the tool's scope), or null when it may. */
  refusal?: (tool: ToolDef) => string | null;
  /** Told about every finished call (the server logs them). */
  onCall?: (call: { tool: string; ms: number; isError: boolean }) => void;
}

/** Run one tool for a caller: its refusal, or its answer or failure as a result. */
async function callTool(tool: ToolDef, backend: McpBackend, args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const refused = backend.refusal?.(tool);
  if (refused) return toError(new Error(refused));
  const ctx: ToolContext = { api: backend.api, projectId: backend.projectId, signal: extra.signal, progress: progressOf(extra) };
  try {
    return toResult(await tool.run(args as never, ctx));
  } catch (err) {
    return toError(extra.signal.aborted ? new Error('cancelled') : err);
  }
}

/** An MCP server exposing TOOLS over any transport (stdio for `dossier mcp`, Streamable HTTP at the server's /mcp). */
export function createMcpServer(backend: McpBackend, version: string): McpServer {
  const server = new McpServer(
    { name: 'dossier', title: 'Dossier', version },
    {
      // logging: clients may set a level (logging/setLevel); the server sends nothing below it.
      capabilities: { logging: {} },
      instructions:
        'Dossier: document retrieval and research. Start with svc_list_collections; search with svc_search, read with svc_get_section, answer with svc_research.',
    },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output && z.looseObject(tool.output),
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: Record<string, unknown>, extra: Extra) => {
        const started = performance.now();
        const result = await callTool(tool, backend, args, extra);
        backend.onCall?.({ tool: tool.name, ms: performance.now() - started, isError: result.isError === true });
        return result;
      },
    );
  }
  return server;
}

/** The tools an OAuth scope may call (a project API key may call them all). */
export const toolsOfScope = (scope: ToolDef['scope']): ToolDef[] => TOOLS.filter((tool) => scope === 'svc:full' || tool.scope === scope);
