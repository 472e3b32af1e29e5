import type { ConnectedClient } from '@dossier/core';
import type { Context } from '../command.ts';
import { usageError } from '../errors.ts';
import { shortDate } from '../format.ts';
import { sessionCall } from '../session.ts';
import { arg } from '../subcommand.ts';

/**
 * `dossier mcp clients [list|revoke <id>]`: the project's connected MCP clients (OAuth connections), through the
 * management API (GET and DELETE /v1/orgs/:orgId/projects/:projectId/mcp-clients) with the saved session of an org
 * admin.
 */

const orgId = (ctx: Context): string => {
  const org = typeof ctx.values.org === 'string' ? ctx.values.org : ctx.env.SERVICE_ORG_ID;
  if (!org) throw usageError('no org id', 'pass --org <id> or set SERVICE_ORG_ID');
  return org;
};

const base = (ctx: Context): string => `/orgs/${orgId(ctx)}/projects/${ctx.projectId()}/mcp-clients`;
const notFound = { notFoundHint: 'check --org and --project, and `dossier mcp clients list`' };

const HEAD = ['ID', 'CLIENT', 'ENV', 'SCOPES', 'CONNECTED BY', 'CONNECTED', 'LAST USED'];
const row = (c: ConnectedClient) => [
  c.id,
  c.clientName ?? c.clientId,
  c.env,
  c.scopes.join(' '),
  c.account.email ?? c.account.id,
  shortDate(c.createdAt),
  c.lastUsedAt ? shortDate(c.lastUsedAt) : 'never',
];

async function list(ctx: Context) {
  const clients = await sessionCall<ConnectedClient[]>(ctx, 'GET', base(ctx), notFound);
  if (ctx.out.json) return ctx.out.value(clients);
  if (clients.length === 0) return ctx.out.info('no connected clients');
  ctx.out.table(HEAD, clients.map(row));
}

async function revoke(ctx: Context) {
  const id = arg(ctx, 2, 'the connection id', 'dossier mcp clients revoke <id>');
  await sessionCall(ctx, 'DELETE', `${base(ctx)}/${id}`, notFound);
  if (ctx.out.json) ctx.out.value({ id, revoked: true });
  else ctx.out.info(`disconnected ${id}: its access and refresh tokens stop working now`);
}

/** Run `mcp clients <list|revoke>` (list when no action is named). */
export async function mcpClients(ctx: Context): Promise<void> {
  const action = ctx.positionals[1] ?? 'list';
  if (action === 'list') return list(ctx);
  if (action === 'revoke') return revoke(ctx);
  throw usageError(`unknown subcommand 'mcp clients ${action}'`, 'use list or revoke <id>; see `dossier mcp --help`');
}
