import type { Command } from '../command.ts';
import { mcpClients } from './mcp-clients.ts';
import { VERSION } from '../run.ts';

/**
 * `dossier mcp`: the spec's stdio tool server (the "legacy stdio build" for self-hosted and air-gapped use). Every
 * tool calls the /v1 API with SERVICE_API_KEY, so the server behind SERVICE_BASE_URL enforces every rule.
 * stdout carries only the protocol; diagnostics go to stderr.
 */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the svc_ tools over stdio to an MCP client (desktop chat app, IDE agent)',
  usage: ['mcp', 'mcp clients [list]', 'mcp clients revoke <id>'],
  description:
    'Speaks the Model Context Protocol on stdin/stdout until the client closes it. The tools (svc_search, svc_research,\n' +
    'svc_list_collections, … 30 in all) call the Dossier API at SERVICE_BASE_URL with SERVICE_API_KEY; new collections go to\n' +
    'SERVICE_PROJECT_ID (or --project). Configure it in the client as a stdio server; docs/mcp.md has an example.\n' +
    '`mcp clients` lists the MCP clients connected to the project over HTTP (OAuth) and revokes them: it needs the\n' +
    'session of an org admin (`dossier login`) and --org (or SERVICE_ORG_ID).',
  subcommands: [
    ['clients [list]', 'the connected MCP clients of the project'],
    ['clients revoke <id>', 'disconnect one: its tokens stop at once'],
  ],
  options: { org: { type: 'string' }, token: { type: 'string' } },
  optionHelp: [
    ['--org <id>', 'clients: the org (default: $SERVICE_ORG_ID)'],
    ['--token <jwt>', 'clients: a session token (default: the saved session)'],
  ],
  examples: [
    'SERVICE_API_KEY=dsk_live_… SERVICE_BASE_URL=http://127.0.0.1:8080/v1 dossier mcp',
    'dossier mcp clients list',
    'dossier mcp clients revoke 01a2…',
  ],
  async run(ctx) {
    if (ctx.positionals[0] === 'clients') return mcpClients(ctx);
    const api = ctx.api();
    const projectId = ctx.settings.projectId.value;
    // Loaded here, not at the top: every other command (and `--help`) starts without the MCP SDK.
    const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('@dossier/mcp')]);
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
