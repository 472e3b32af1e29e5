import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApiClient } from '../client.ts';
import { CLAIM_TOOLS } from './claim-tools.ts';
import { COLLECTION_TOOLS } from './collection-tools.ts';
import type { ToolContext, ToolDef } from './define.ts';
import { DOCUMENT_TOOLS } from './document-tools.ts';
import { RETRIEVAL_TOOLS } from './retrieval-tools.ts';

/** Every `svc_` tool of the spec's table, in one list (the test checks the names against the spec). */
export const TOOLS: readonly ToolDef[] = [...RETRIEVAL_TOOLS, ...CLAIM_TOOLS, ...COLLECTION_TOOLS, ...DOCUMENT_TOOLS];

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

/** What the tools call: the /v1 API with one API key, and the project new collections belong to. */
export interface McpBackend {
  api: ApiClient;
  projectId: string | null;
}

/** An MCP server exposing TOOLS over any transport (stdio for `dossier mcp`). */
export function createMcpServer(backend: McpBackend, version: string): McpServer {
  const server = new McpServer(
    { name: 'dossier', title: 'Dossier', version },
    { instructions: 'Dossier: document retrieval and research. Start with svc_list_collections; search with svc_search, read with svc_get_section, answer with svc_research.' },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output && z.looseObject(tool.output), annotations: { title: tool.title, ...tool.annotations } },
      async (args: Record<string, unknown>, extra: Extra) => {
        const ctx: ToolContext = { ...backend, signal: extra.signal, progress: progressOf(extra) };
        try {
          return toResult(await tool.run(args as never, ctx));
        } catch (err) {
          if (extra.signal.aborted) return toError(new Error('cancelled'));
          return toError(err);
        }
      },
    );
  }
  return server;
}
