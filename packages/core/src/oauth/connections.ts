import type { AccountStore } from '../ports/account-store.ts';
import type { OAuthStore } from '../ports/oauth-store.ts';
import type { TenancyStore } from '../ports/tenancy-store.ts';
import type { OAuthScope } from '../auth/principal.ts';
import { requireProjectRole } from '../auth/roles.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { ContextPart } from '../context.ts';
import { notFound } from '../domain/errors.ts';
import type { Env } from '../domain/types.ts';
import type { OAuthGrantRecord } from '../ports/oauth-store.ts';
import { isUuid } from '../util/ids.ts';

/** A connected client as the management API, the CLI and the page show it (never a token). */
export interface ConnectedClient {
  /** The connection (grant) id: what revoking takes. */
  id: string;
  clientId: string;
  clientName: string | null;
  env: Env;
  scopes: OAuthScope[];
  /** Who consented. */
  account: { id: string; email: string | null };
  createdAt: string;
  lastUsedAt: string | null;
  /** When it lapses unless the client refreshes its tokens before. */
  expiresAt: string;
}

type ProjectPath = { orgId: string; projectId: string };

async function viewOf(store: OAuthStore & TenancyStore, grant: OAuthGrantRecord): Promise<ConnectedClient> {
  const [client, account] = await Promise.all([store.getOAuthClient(grant.clientId), store.getAccount(grant.accountId)]);
  return {
    id: grant.id,
    clientId: grant.clientId,
    clientName: client?.name ?? null,
    env: grant.env,
    scopes: grant.scopes,
    account: { id: grant.accountId, email: account?.email ?? null },
    createdAt: grant.createdAt,
    lastUsedAt: grant.lastUsedAt,
    expiresAt: grant.expiresAt,
  };
}

/** Connected MCP clients of a project: admins of its org list them and revoke them (every token at once). */
export function connectionService(ctx: ContextPart<never, AccountStore & OAuthStore & TenancyStore>, now: () => string) {
  return {
    async list(claims: SessionClaims, path: ProjectPath): Promise<ConnectedClient[]> {
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Managing connected clients');
      return Promise.all((await ctx.store.listOAuthGrants(project.id, now())).map((grant) => viewOf(ctx.store, grant)));
    },
    /** Revoke a connection: its access and refresh tokens stop working on their next use. */
    async revoke(claims: SessionClaims, path: ProjectPath, connectionId: string): Promise<void> {
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Managing connected clients');
      const grant = isUuid(connectionId) ? await ctx.store.getOAuthGrant(connectionId) : null;
      if (!grant || grant.projectId !== project.id || grant.revokedAt) throw notFound('Connected client');
      await ctx.store.revokeOAuthGrant(grant.id, now());
    },
  };
}

/** The connected clients of every project the account administers, for the connected-clients page. */
export async function connectionsOfAdmin(ctx: ContextPart<never, AccountStore & OAuthStore & TenancyStore>, claims: SessionClaims, now: string) {
  const projects: { orgId: string; orgName: string; projectId: string; projectName: string; clients: ConnectedClient[] }[] = [];
  for (const org of await ctx.store.listOrgsForAccount(claims.accountId)) {
    if ((await ctx.store.getMembershipRole(org.id, claims.accountId)) !== 'admin') continue;
    for (const project of await ctx.store.listProjects(org.id)) {
      const clients = await Promise.all((await ctx.store.listOAuthGrants(project.id, now)).map((grant) => viewOf(ctx.store, grant)));
      projects.push({ orgId: org.id, orgName: org.name, projectId: project.id, projectName: project.name, clients });
    }
  }
  return projects;
}
