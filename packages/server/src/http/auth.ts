import {
  type Access,
  type AgentCaller,
  type Dossier,
  DossierError,
  isDossierError,
  OAUTH_SCOPES,
  type Principal,
  type PrincipalKind,
  type SessionClaims,
  type WebhookCaller,
} from '@dossier/core';
import { API_KEY_PREFIX, envOfApiKey, isOAuthAccessToken, sandboxOf } from '@dossier/core/internal';
import type { Context } from 'koa';
import type { AuthMode } from '../routes/define.ts';
import { type OAuthUrls, resourceMetadataUrl } from './oauth-urls.ts';
import { sessionCookie, sessionPrincipal } from './session-cookie.ts';

/**
 * Authentication (issue 9): every route declares an AuthMode; the router resolves the caller's Principal from the
 * Authorization header (or `?key=` where a route allows it, or the dashboard's session cookie: session-cookie.ts)
 * before the body is read, refuses kinds the mode does
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
  // The MCP endpoint: a project key may call every tool, an OAuth token the tools of its scopes.
  'key-or-oauth': { accepts: ['project_key', 'oauth'], needs: 'A project API key or an OAuth access token is required (Authorization: Bearer <token>)' },
  // Credentials are not read at all: login, health and the OpenAPI document; upload URLs carry their own token.
  none: { accepts: ['anonymous'], needs: '' },
  'upload-url': { accepts: ['anonymous'], needs: '' },
};

/** Modes whose routes never look at credentials. */
const UNAUTHENTICATED: ReadonlySet<AuthMode> = new Set(['none', 'upload-url']);

export const bearer = (ctx: Context): string | null => {
  const h = ctx.get('authorization');
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (h && !m) throw new DossierError('unauthorized', 'Authorization header must be "Bearer <key>"');
  return m?.[1] ?? null;
};

/**
 * Resolve a credential: OAuth access tokens and API keys by their prefix (an access token only where the route takes
 * one, and only for the resource it was issued for), anything else as a JWT where the route takes one (elsewhere it is
 * an invalid API key). Unknown, revoked or expired credentials are 401.
 */
async function principalOf(dossier: Dossier, credential: string | null, rule: (typeof AUTH_RULES)[AuthMode], urls: OAuthUrls): Promise<Principal> {
  if (!credential) return { kind: 'anonymous' };
  if (isOAuthAccessToken(credential)) {
    if (!rule.accepts.includes('oauth')) throw new DossierError('unauthorized', `OAuth access tokens are accepted at ${urls.resource} only`);
    return dossier.oauth.authenticateAccessToken(credential, urls.resource);
  }
  if (envOfApiKey(credential) || credential.startsWith(API_KEY_PREFIX)) return dossier.auth.authenticateApiKey(credential);
  if (!rule.accepts.includes('user')) throw new DossierError('unauthorized', 'Invalid API key');
  const claims = await dossier.auth.verifyToken(credential);
  return { kind: 'user', accountId: claims.accountId, email: claims.email, sessionId: claims.sessionId ?? null };
}

/** Quote a value for an auth-param of WWW-Authenticate (RFC 9110 §11.2). */
const quoted = (value: string): string => `"${value.replace(/["\\]/g, '\\$&')}"`;

/**
 * The Bearer challenge of the OAuth-protected resource (RFC 6750 §3, RFC 9728 §5.1): where its metadata is, why a
 * presented token was refused, and the scope to ask for (MCP authorization, scope challenge): the one a refused call
 * needs, or on a 401 every scope of the resource (the person picks on the consent page), so an MCP client can start
 * (or restart) the authorization flow.
 */
export function bearerChallenge(urls: OAuthUrls, error?: { code: 'invalid_token' | 'insufficient_scope'; description: string; scope?: string }): string {
  const params = [
    ...(error ? [`error=${quoted(error.code)}`, `error_description=${quoted(error.description)}`] : []),
    `scope=${quoted(error?.scope ?? OAUTH_SCOPES.join(' '))}`,
    `resource_metadata=${quoted(resourceMetadataUrl(urls))}`,
  ];
  return `Bearer ${params.join(', ')}`;
}

/**
 * Where a principal the server did not read from a credential waits in `ctx.state` for the router: an MCP tool's
 * in-process call, the test-only fixed principal of /mcp, or the caller a host application supplied
 * (createApp's `principal` option). Nothing from the network can set it.
 */
export const GIVEN_PRINCIPAL = 'givenPrincipal';

/** The principal given for this request instead of credentials, if any. */
export function givenPrincipal(ctx: Context): Principal | undefined {
  return ctx.state[GIVEN_PRINCIPAL] as Principal | undefined;
}

/** Give the request the caller a host application vouches for (createApp's `principal` option). */
export function giveHostPrincipal(ctx: Context, caller: Principal): void {
  ctx.state[GIVEN_PRINCIPAL] = caller;
  ctx.state.principalFromHost = true;
}

/** Whether the request's caller is one the host application supplied (its keyId is the host's, not a Dossier key's). */
export function suppliedByHost(ctx: Context): boolean {
  return ctx.state.principalFromHost === true;
}

/**
 * The router's gate: resolve the principal for the route's mode and refuse the kinds it does not accept. Runs
 * before the body is read, so an unauthenticated caller cannot make the server parse a large body. A 401 from a
 * route that takes OAuth tokens carries the Bearer challenge.
 */
export async function authenticate(dossier: Dossier, ctx: Context, mode: AuthMode, opts: { queryKey?: boolean; urls: OAuthUrls }): Promise<Principal> {
  if (UNAUTHENTICATED.has(mode)) return { kind: 'anonymous' };
  const given = givenPrincipal(ctx);
  if (given) return acceptGiven(ctx, mode, given);
  const rule = AUTH_RULES[mode];
  let credential: string | null = null;
  try {
    credential = bearer(ctx) ?? (opts.queryKey && typeof ctx.query.key === 'string' ? ctx.query.key : null);
    const cookie = credential ? null : sessionCookie(ctx);
    const fromCookie = cookie ? await sessionPrincipal(dossier, ctx, cookie, rule.accepts) : null;
    const principal = fromCookie ?? (await principalOf(dossier, credential, rule, opts.urls));
    if ((principal.kind === 'project_key' || principal.kind === 'org_key') && !fromCookie) ctx.state.keyId = principal.keyId; // the access log names the key's id
    if (!rule.accepts.includes(principal.kind)) throw new DossierError('unauthorized', rule.needs);
    ctx.state.principal = principal;
    return principal;
  } catch (err) {
    if (rule.accepts.includes('oauth') && isDossierError(err, 'unauthorized')) {
      ctx.set('WWW-Authenticate', bearerChallenge(opts.urls, credential ? { code: 'invalid_token', description: err.message } : undefined));
    }
    throw err;
  }
}

/**
 * A principal the server resolved itself rather than from a credential: an MCP tool's in-process call (its scope
 * already checked against the tool table, mcp/in-process.ts), or the test-only fixed principal of /mcp. An OAuth
 * principal acts there as its sandbox's data-plane caller, as a key of that sandbox would.
 */
function acceptGiven(ctx: Context, mode: AuthMode, given: Principal): Principal {
  const rule = AUTH_RULES[mode];
  const actsAs: PrincipalKind = given.kind === 'oauth' && !rule.accepts.includes('oauth') ? 'project_key' : given.kind;
  if (given.kind === 'project_key' || given.kind === 'org_key') ctx.state.keyId = given.keyId;
  if (!rule.accepts.includes(actsAs)) throw new DossierError('unauthorized', rule.needs);
  ctx.state.principal = given;
  return given;
}

/** The request's principal (set by the router before the handler runs). */
export function principal(ctx: Context): Principal {
  const found = ctx.state.principal as Principal | undefined;
  if (!found) throw new Error('no principal: the route was mounted without authentication');
  return found;
}

/** The caller's sandbox from a project API key (or an MCP tool's OAuth principal); null for an anonymous caller (public reads). */
export function apiAccess(ctx: Context): Access {
  return sandboxOf(principal(ctx));
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
  return { accountId: caller.accountId, email: caller.email, sessionId: caller.sessionId ?? null };
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
