import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from '../command.ts';
import { createMcpServer } from '../mcp/server.ts';
import { VERSION } from '../run.ts';

/**
 * `dossier mcp`: the spec's stdio tool server (the "legacy stdio build" for self-hosted and air-gapped use). Every
 * tool calls the /v1 API with SERVICE_API_KEY, so the server behind SERVICE_BASE_URL enforces every rule.
 * stdout carries only the protocol; diagnostics go to stderr.
 */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the svc_ tools over stdio to an MCP client (desktop chat app, IDE agent)',
  usage: ['mcp'],
  description:
    'Speaks the Model Context Protocol on stdin/stdout until the client closes it. The tools (svc_search, svc_research,\n' +
    'svc_list_collections, … 30 in all) call the Dossier API at SERVICE_BASE_URL with SERVICE_API_KEY; new collections go to\n' +
    'SERVICE_PROJECT_ID (or --project). Configure it in the client as a stdio server; see the README for an example.',
  examples: ['SERVICE_API_KEY=dsk_live_… SERVICE_BASE_URL=http://127.0.0.1:8080/v1 dossier mcp'],
  async run(ctx) {
    const api = ctx.api();
    const projectId = ctx.settings.projectId.value;
    const server = createMcpServer({ api, projectId }, VERSION);
    const transport = new StdioServerTransport(ctx.stdin as NodeJS.ReadStream, ctx.out.streams.stdout as NodeJS.WriteStream);
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
      ctx.stdin.once('end', resolve);
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.connect(transport);
    ctx.out.info(`dossier mcp: serving ${api.baseUrl} over stdio`);
    await closed;
    await server.close();
  },
};
