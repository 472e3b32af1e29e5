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
import type { AuthMode, CallerOf } from '../routes/define.ts';
import { type OAuthUrls, resourceMetadataUrl } from './oauth-urls.ts';
import { fromSessionCookie, sessionCookie, sessionPrincipal } from './session-cookie.ts';

/**
 * Authentication (issue 9): every route declares an AuthMode; the router resolves the caller's Principal from the
 * Authorization header (or `?key=` where a route allows it, or the dashboard's session cookie: session-cookie.ts)
 * before the body is read, refuses kinds the mode does not accept with 401, and hands the handler the caller its
 * mode gives (CALLERS; issue 35), so no handler re-reads or re-checks it. Nothing else reads credentials.
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

/** What a refused caller of the mode is told (the same 401 the router gives a kind the mode does not accept). */
const refused = (mode: AuthMode): DossierError => new DossierError('unauthorized', AUTH_RULES[mode].needs);

/** The project sandbox a data-plane principal acts in; a route taking only keys always has one. */
function keySandbox(caller: Principal): NonNullable<Access> {
  const sandbox = sandboxOf(caller);
  if (!sandbox) throw refused('key');
  return sandbox;
}

/** The session claims of a signed-in person. */
function sessionOf(caller: Principal): SessionClaims {
  if (caller.kind !== 'user') throw refused('jwt');
  return { accountId: caller.accountId, email: caller.email, sessionId: caller.sessionId ?? null };
}

/** A webhook route's caller: a person, or a project API key (spec: webhook routes accept both). */
function webhookCaller(caller: Principal): WebhookCaller {
  if (caller.kind === 'user') return { session: { accountId: caller.accountId, email: caller.email } };
  if (caller.kind === 'project_key') return { access: { projectId: caller.projectId, env: caller.env } };
  throw refused('jwt-or-key');
}

/** Who invokes a hosted agent: a person (member of the project's org) or an org API key. */
function agentCaller(caller: Principal): AgentCaller {
  if (caller.kind === 'user') return { session: { accountId: caller.accountId, email: caller.email } };
  if (caller.kind === 'org_key') return { orgKey: { orgId: caller.orgId, keyId: caller.keyId } };
  throw refused('jwt-or-org-key');
}

/** The MCP endpoint's caller: a project API key or an OAuth token. */
function mcpCaller(caller: Principal): CallerOf<'key-or-oauth'> {
  if (caller.kind === 'project_key' || caller.kind === 'oauth') return caller;
  throw refused('key-or-oauth');
}

/**
 * The caller each mode hands its handlers (routes/define.ts CallerByMode), computed once by the router from the
 * principal AUTH_RULES accepted. A conversion refuses with the mode's 401 a principal the mode's caller cannot hold
 * (an MCP tool's OAuth principal on a webhook route, which acts there as a project key).
 */
export const CALLERS: { readonly [M in AuthMode]: (principal: Principal) => CallerOf<M> } = {
  key: keySandbox,
  'key-or-public': sandboxOf,
  jwt: sessionOf,
  'jwt-or-key': webhookCaller,
  'jwt-or-org-key': agentCaller,
  'key-or-oauth': mcpCaller,
  none: () => undefined,
  'upload-url': () => undefined,
};

/** The caller a handler of a route with this mode receives. */
export function callerFor<M extends AuthMode>(mode: M, principal: Principal): CallerOf<M> {
  return CALLERS[mode](principal);
}

/**
 * The API key a long-lived response (an event stream) re-checks, so revoking the key ends it (issue 9): a project key
 * Dossier resolved from the request's credential. A caller the host application supplied is the host's to end, and a
 * dashboard session (no key behind it) ends with the page.
 */
export function keyToWatch(ctx: Context): string | null {
  const found = ctx.state.principal as Principal | undefined;
  const fromHost = ctx.state.principalFromHost === true;
  return found?.kind === 'project_key' && !fromHost && !fromSessionCookie(ctx) ? found.keyId : null;
}
