import { type DossierCore, ENVS, isDossierError, OAUTH_SCOPES, type SessionClaims } from '@dossier/core';
import type { Context } from 'koa';
import { z } from 'zod';
import { readForm } from '../http/body.ts';
import { connectionsLoginPage, connectionsPage } from '../pages/connected-clients.ts';
import { sendPage } from '../pages/html.ts';
import { noContent, type RouteDef, type RouteDeps, route, send } from './define.ts';
import { signInChoices, signInFromForm } from './oauth.ts';

/**
 * Connected MCP clients (issue 18; the spec says they "can be revoked from the dashboard" and leaves the rest "not
 * shown"): org admins list a project's connections and revoke them through the management API (JWT), the CLI
 * (`dossier mcp clients`) and a server-rendered page.
 */

/** A connected client, for the OpenAPI document. */
const CONNECTED_CLIENT = z.object({
  id: z.string(),
  clientId: z.string(),
  clientName: z.string().nullable(),
  env: z.enum(ENVS),
  scopes: z.array(z.enum(OAUTH_SCOPES)),
  account: z.object({ id: z.string(), email: z.string().nullable() }),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string(),
});

const view = '{id, clientId, clientName, env, scopes, account: {id, email}, createdAt, lastUsedAt, expiresAt}';

function apiRoutes({ dossier }: RouteDeps): RouteDef[] {
  const path = '/v1/orgs/:orgId/projects/:projectId/mcp-clients';
  const target = (ctx: Context) => ({ orgId: ctx.params.orgId, projectId: ctx.params.projectId });
  const denied = {
    401: 'JWT required',
    403: 'Needs the admin role in the org',
    404: 'Org, project or connection not found (also when the account is not a member)',
  };
  return [
    route({
      method: 'get',
      path,
      operationId: 'listMcpClients',
      tag: 'mcp-clients',
      auth: 'jwt',
      role: 'admin',
      summary: "The project's connected MCP clients (OAuth connections neither revoked nor lapsed), newest first",
      responses: { 200: { description: `array of ${view}`, schema: z.array(CONNECTED_CLIENT) }, ...denied },
      handle: async (ctx, { caller }) => send(ctx, 200, await dossier.oauth.connections.list(caller, target(ctx))),
    }),
    route({
      method: 'delete',
      path: `${path}/:connectionId`,
      operationId: 'revokeMcpClient',
      tag: 'mcp-clients',
      auth: 'jwt',
      role: 'admin',
      summary: 'Disconnect a client: its access and refresh tokens stop working at once',
      responses: { 204: 'Revoked', ...denied },
      handle: async (ctx, { caller }) => {
        await dossier.oauth.connections.revoke(caller, target(ctx), ctx.params.connectionId);
        noContent(ctx);
      },
    }),
  ];
}

/** The purpose of this page's sessions: they open only its own forms (never a client's consent). */
const CONNECTIONS_PAGE = { page: 'connections' } as const;

/** The list page for a signed-in account. */
export async function showConnections(
  dossier: DossierCore,
  ctx: Context,
  claims: SessionClaims,
  session: string,
  extra: { notice?: string; error?: string } = {},
) {
  const projects = await dossier.oauth.connections.ofAdmin(claims);
  sendPage(ctx, 200, connectionsPage({ email: claims.email, session, projects, ...extra }));
}

/** Disconnect from the page: the form carries the page session and the connection's project. */
async function revokeFromPage(dossier: DossierCore, ctx: Context, form: Record<string, string>): Promise<void> {
  const session = form.session ?? '';
  let claims: SessionClaims;
  try {
    claims = await dossier.oauth.pageSession(session, CONNECTIONS_PAGE);
  } catch {
    sendPage(ctx, 401, connectionsLoginPage('Your sign-in has expired: sign in again'));
    return;
  }
  const target = { orgId: form.orgId ?? '', projectId: form.projectId ?? '' };
  try {
    await dossier.oauth.connections.revoke(claims, target, form.connectionId ?? '');
    await showConnections(dossier, ctx, claims, session, { notice: 'Disconnected. The client has to ask for access again.' });
  } catch (err) {
    if (!isDossierError(err, 'not_found') && !isDossierError(err, 'forbidden')) throw err;
    await showConnections(dossier, ctx, claims, session, { error: err.message });
  }
}

function pageRoutes(deps: RouteDeps): RouteDef[] {
  const { dossier } = deps;
  const field = (about: string) => z.string().optional().describe(about);
  return [
    {
      method: 'get',
      path: '/oauth/connected-clients',
      operationId: 'connectedClientsPage',
      tag: 'mcp-clients',
      auth: 'none',
      produces: 'text/html',
      summary: 'The connected clients page: sign in as an org admin to list and disconnect MCP clients',
      responses: { 200: 'Sign-in page' },
      handle: async (ctx) => sendPage(ctx, 200, connectionsLoginPage(undefined, signInChoices(deps))),
    },
    {
      method: 'post',
      path: '/oauth/connected-clients',
      operationId: 'connectedClientsSignIn',
      tag: 'mcp-clients',
      auth: 'none',
      produces: 'text/html',
      rawBody: { type: 'application/x-www-form-urlencoded', schema: z.object({ email: field('Account e-mail'), password: field('Account password') }) },
      summary: 'Sign in on the connected clients page: lists the connections of every project the account administers',
      responses: { 200: 'The list', 401: 'Sign-in page again (wrong e-mail or password)', 429: 'Sign-in page again (too many failed sign-ins)' },
      handle: async (ctx) => {
        const signedIn = await signInFromForm(deps, ctx, await readForm(ctx), CONNECTIONS_PAGE, (status, message) =>
          sendPage(ctx, status, connectionsLoginPage(message, signInChoices(deps))),
        );
        if (signedIn) await showConnections(dossier, ctx, signedIn.claims, signedIn.session);
      },
    },
    {
      method: 'post',
      path: '/oauth/connected-clients/revoke',
      operationId: 'connectedClientsRevoke',
      tag: 'mcp-clients',
      auth: 'none',
      produces: 'text/html',
      rawBody: {
        type: 'application/x-www-form-urlencoded',
        schema: z.object({ session: field('The page session'), orgId: field('Org'), projectId: field('Project'), connectionId: field('Connection') }),
      },
      summary: "Disconnect a client from the page (the signed-in account must be an admin of the project's org)",
      responses: { 200: 'The list, with the outcome', 401: 'Sign-in page again (sign-in expired)' },
      handle: async (ctx) => revokeFromPage(dossier, ctx, await readForm(ctx)),
    },
  ];
}

export function connectedClientRoutes(deps: RouteDeps): RouteDef[] {
  return [...apiRoutes(deps), ...pageRoutes(deps)];
}
