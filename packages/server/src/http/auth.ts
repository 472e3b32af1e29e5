import { type Access, type AgentCaller, API_KEY_PREFIX, type DossierCore, DossierError, envOfApiKey, type Principal, type PrincipalKind, type SessionClaims, type WebhookCaller } from '@dossier/core';
import type { Context } from 'koa';
import type { AuthMode } from '../routes/define.ts';

/**
 * Authentication (issue 9): every route declares an AuthMode; the router resolves the caller's Principal from the
 * Authorization header (or `?key=` where a route allows it) before the body is read, refuses kinds the mode does
 * not accept with 401, and hands the principal to the handler through these helpers. Nothing else reads
 * credentials.
 */

/** The principal kinds each mode accepts, and what a refused caller is told. */
export const AUTH_RULES: Readonly<Record<AuthMode, { accepts: readonly PrincipalKind[]; needs: string }>> = {
  key: { accepts: ['project_key'], needs: 'An API key is required (Authorization: Bearer <key>)' },
  'key-or-public': { accepts: ['project_key', 'anonymous'], needs: 'An API key is required (Authorization: Bearer <key>); public collections need none' },
  jwt: { accepts: ['user'], needs: 'A token from POST /auth/login is required (Authorization: Bearer <token>)' },
  'jwt-or-key': { accepts: ['user', 'project_key'], needs: 'A token from POST /auth/login or a project API key is required (Authorization: Bearer <token>)' },
  'jwt-or-org-key': { accepts: ['user', 'org_key'], needs: 'A token from POST /auth/login or an org API key is required (Authorization: Bearer <token>)' },
  // Credentials are not read at all: login, health and the OpenAPI document; upload URLs carry their own token.
  none: { accepts: ['anonymous'], needs: '' },
  'upload-url': { accepts: ['anonymous'], needs: '' },
};

/** Modes whose routes never look at credentials. */
const UNAUTHENTICATED: ReadonlySet<AuthMode> = new Set(['none', 'upload-url']);

const bearer = (ctx: Context): string | null => {
  const h = ctx.get('authorization');
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (h && !m) throw new DossierError('unauthorized', 'Authorization header must be "Bearer <key>"');
  return m?.[1] ?? null;
};

/**
 * Resolve a credential: API keys by their prefix, anything else as a JWT where the route takes one (elsewhere it
 * is an invalid API key). Unknown, revoked or expired credentials are 401.
 */
async function principalOf(dossier: DossierCore, credential: string | null, acceptsUser: boolean): Promise<Principal> {
  if (!credential) return { kind: 'anonymous' };
  if (envOfApiKey(credential) || credential.startsWith(API_KEY_PREFIX)) return dossier.auth.authenticateApiKey(credential);
  if (!acceptsUser) throw new DossierError('unauthorized', 'Invalid API key');
  const claims = await dossier.auth.verifyToken(credential);
  return { kind: 'user', accountId: claims.accountId, email: claims.email };
}

/**
 * The router's gate: resolve the principal for the route's mode and refuse the kinds it does not accept. Runs
 * before the body is read, so an unauthenticated caller cannot make the server parse a large body.
 */
export async function authenticate(dossier: DossierCore, ctx: Context, mode: AuthMode, queryKey = false): Promise<Principal> {
  if (UNAUTHENTICATED.has(mode)) return { kind: 'anonymous' };
  const credential = bearer(ctx) ?? (queryKey && typeof ctx.query.key === 'string' ? ctx.query.key : null);
  const rule = AUTH_RULES[mode];
  const principal = await principalOf(dossier, credential, rule.accepts.includes('user'));
  if (principal.kind === 'project_key' || principal.kind === 'org_key') ctx.state.keyId = principal.keyId; // the access log names the key's id
  if (!rule.accepts.includes(principal.kind)) throw new DossierError('unauthorized', rule.needs);
  ctx.state.principal = principal;
  return principal;
}

/** The request's principal (set by the router before the handler runs). */
export function principal(ctx: Context): Principal {
  const found = ctx.state.principal as Principal | undefined;
  if (!found) throw new Error('no principal: the route was mounted without authentication');
  return found;
}

/** The caller's sandbox from a project API key; null for an anonymous caller (public reads). */
export function apiAccess(ctx: Context): Access {
  const caller = principal(ctx);
  return caller.kind === 'project_key' ? { projectId: caller.projectId, env: caller.env } : null;
}

/** The caller's sandbox; the route accepts only project keys, so there always is one. */
export function requireApiAccess(ctx: Context): NonNullable<Access> {
  const access = apiAccess(ctx);
  if (!access) throw new DossierError('unauthorized', AUTH_RULES.key.needs);
  return access;
}

/** The management-plane session of a JWT caller. */
export function requireSession(ctx: Context): SessionClaims {
  const caller = principal(ctx);
  if (caller.kind !== 'user') throw new DossierError('unauthorized', AUTH_RULES.jwt.needs);
  return { accountId: caller.accountId, email: caller.email };
}

/** A management-plane caller: a JWT, or the project's API key (spec: webhook routes accept both). */
export function requireSessionOrKey(ctx: Context): WebhookCaller {
  const caller = principal(ctx);
  if (caller.kind === 'user') return { session: { accountId: caller.accountId, email: caller.email } };
  if (caller.kind === 'project_key') return { access: { projectId: caller.projectId, env: caller.env } };
  throw new DossierError('unauthorized', AUTH_RULES['jwt-or-key'].needs);
}

/** Who invokes a hosted agent: a JWT (member of the project's org) or an org API key. */
export function agentCaller(ctx: Context): AgentCaller {
  const caller = principal(ctx);
  if (caller.kind === 'user') return { session: { accountId: caller.accountId, email: caller.email } };
  if (caller.kind === 'org_key') return { orgKey: { orgId: caller.orgId, keyId: caller.keyId } };
  throw new DossierError('unauthorized', AUTH_RULES['jwt-or-org-key'].needs);
}
