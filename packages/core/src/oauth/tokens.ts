import type { AccountStore } from '../ports/account-store.ts';
import type { OAuthStore } from '../ports/oauth-store.ts';
import type { OAuthScope, Principal } from '../auth/principal.ts';
import { hashSecret } from '../auth/secrets.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { OAuthClientRecord, OAuthCodeRecord, OAuthGrantRecord, OAuthTokenRecord } from '../ports/oauth-store.ts';
import { OAuthError } from './errors.ts';
import { roleInProject, scopesAllowed } from './sandboxes.ts';
import { parseScopes, type TokenRequest } from './schemas.ts';
import { isCodeVerifier, newOAuthSecret, s256 } from './secrets.ts';
import { clockOf, type OAuthSettings } from './settings.ts';

/** The token endpoint's answer (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** Resource indicators (RFC 8707) compare as URLs, so `…/mcp` and `…/mcp/` name the same resource. */
export const sameResource = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** A new access and refresh token of a grant: the records to store and the answer to send. */
function newTokenPair(
  grant: Pick<OAuthGrantRecord, 'id' | 'scopes'>,
  settings: OAuthSettings,
): { records: OAuthTokenRecord[]; response: TokenResponse; refreshExpiresAt: string } {
  const clock = clockOf(settings);
  const access = newOAuthSecret('access');
  const refresh = newOAuthSecret('refresh');
  const refreshExpiresAt = clock.after(settings.refreshTokenTtlSeconds);
  const record = (token: string, kind: OAuthTokenRecord['kind'], expiresAt: string): OAuthTokenRecord => ({
    tokenHash: hashSecret(token),
    grantId: grant.id,
    kind,
    expiresAt,
    createdAt: clock.now(),
    usedAt: null,
    revokedAt: null,
  });
  return {
    records: [record(access, 'access', clock.after(settings.accessTokenTtlSeconds)), record(refresh, 'refresh', refreshExpiresAt)],
    response: { access_token: access, token_type: 'Bearer', expires_in: settings.accessTokenTtlSeconds, refresh_token: refresh, scope: grant.scopes.join(' ') },
    refreshExpiresAt,
  };
}

/** The account may still grant these scopes in the project (a member removed or demoted since loses the grant). */
async function requireStillAllowed(
  ctx: ContextPart<never, AccountStore>,
  terms: { accountId: string; projectId: string; scopes: OAuthScope[] },
): Promise<boolean> {
  const role = await roleInProject(ctx.store, terms.accountId, terms.projectId);
  return role !== null && scopesAllowed(role, terms.scopes);
}

/** Checks of a code's exchange after it was spent (so a failed attempt still uses it up). */
function checkCodeExchange(code: OAuthCodeRecord, client: OAuthClientRecord, request: TokenRequest, now: string): void {
  if (code.clientId !== client.id) throw invalidGrant('The code was issued to another client');
  if (code.expiresAt <= now) throw invalidGrant('The code has expired');
  if (request.redirect_uri !== undefined && request.redirect_uri !== code.redirectUri)
    throw invalidGrant("redirect_uri differs from the authorization request's");
  const verifier = request.code_verifier ?? '';
  if (!isCodeVerifier(verifier) || s256(verifier) !== code.codeChallenge) throw invalidGrant('code_verifier does not match the code_challenge (PKCE S256)');
  if (request.resource !== undefined && !sameResource(request.resource, code.resource))
    throw new OAuthError('invalid_target', `The code was issued for ${code.resource}`);
}

/**
 * grant_type=authorization_code: a code is spent on its first presentation, right or wrong; a second presentation
 * revokes every token issued from it (RFC 6749 §4.1.2).
 */
export async function exchangeCode(
  ctx: ContextPart<never, OAuthStore & AccountStore>,
  client: OAuthClientRecord,
  request: TokenRequest,
  settings: OAuthSettings,
): Promise<TokenResponse> {
  if (!request.code) throw new OAuthError('invalid_request', 'code is required');
  if (!request.code_verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
  const now = clockOf(settings).now();
  const spent = await ctx.store.consumeOAuthCode(hashSecret(request.code), now);
  if (!spent) throw invalidGrant('Unknown authorization code');
  const { code, firstUse } = spent;
  if (!firstUse) {
    await ctx.store.revokeOAuthGrant(code.grantId, now);
    throw invalidGrant('The code was already used: tokens issued from it are revoked');
  }
  checkCodeExchange(code, client, request, now);
  if (!(await requireStillAllowed(ctx, code))) throw invalidGrant('The account may no longer grant this access');
  const { clientId, accountId, projectId, env, scopes, resource } = code;
  const grant: OAuthGrantRecord = {
    id: code.grantId,
    clientId,
    accountId,
    projectId,
    env,
    scopes,
    resource,
    createdAt: now,
    expiresAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  const pair = newTokenPair(grant, settings);
  await ctx.store.createOAuthGrant({ ...grant, expiresAt: pair.refreshExpiresAt }, pair.records);
  return pair.response;
}

/** The grant a refresh token belongs to, when the token may be spent by this client now. */
async function refreshableGrant(store: OAuthStore, token: OAuthTokenRecord | null, client: OAuthClientRecord, now: string): Promise<OAuthGrantRecord> {
  const grant = token?.kind === 'refresh' ? await store.getOAuthGrant(token.grantId) : null;
  if (!token || !grant || grant.clientId !== client.id) throw invalidGrant('Unknown refresh token');
  if (grant.revokedAt) throw invalidGrant('The authorization was revoked');
  if (token.usedAt) {
    // A rotated refresh token came back: someone holds a copy. End the whole family (OAuth 2.1 §4.3.1).
    await store.revokeOAuthGrant(grant.id, now);
    throw invalidGrant('The refresh token was already used: every token of this authorization is revoked');
  }
  if (token.expiresAt <= now) throw invalidGrant('The refresh token has expired');
  return grant;
}

/**
 * grant_type=refresh_token: the token is spent and replaced (rotation); the grant's scopes stay as consented. Asking
 * for more than the grant is `invalid_scope`. A client that refreshes without naming a scope right after a call of
 * this grant was refused for a scope it lacks (`pendingStepUp`; the MCP SDK's auth() does this) gets `invalid_grant`
 * once, which makes it drop these tokens and start a new authorization for that scope: either way the person is asked
 * again, instead of the client getting tokens that keep the old scope. The refresh token is not spent.
 */
export async function refreshTokens(
  ctx: ContextPart<never, OAuthStore & AccountStore>,
  client: OAuthClientRecord,
  request: TokenRequest,
  settings: OAuthSettings,
  pendingStepUp: (grantId: string) => OAuthScope | null = () => null,
): Promise<TokenResponse> {
  if (!request.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
  const now = clockOf(settings).now();
  const tokenHash = hashSecret(request.refresh_token);
  const grant = await refreshableGrant(ctx.store, await ctx.store.findOAuthToken(tokenHash), client, now);
  const covered = (scope: OAuthScope) => grant.scopes.includes('svc:full') || grant.scopes.includes(scope);
  const more = parseScopes(request.scope).filter((scope) => !covered(scope));
  if (more.length > 0)
    throw new OAuthError('invalid_scope', `This authorization grants ${grant.scopes.join(' ')} only; ${more.join(' ')} needs a new authorization`);
  const stepUp = request.scope === undefined ? pendingStepUp(grant.id) : null;
  if (stepUp && !covered(stepUp)) {
    throw invalidGrant(`A call needed ${stepUp}, which this authorization (${grant.scopes.join(' ')}) does not grant: authorize again with scope ${stepUp}`);
  }
  if (request.resource !== undefined && !sameResource(request.resource, grant.resource))
    throw new OAuthError('invalid_target', `The authorization was granted for ${grant.resource}`);
  if (!(await requireStillAllowed(ctx, grant))) throw invalidGrant('The account may no longer grant this access');
  const pair = newTokenPair(grant, settings);
  if (!(await ctx.store.rotateOAuthRefreshToken(tokenHash, now, pair.records, pair.refreshExpiresAt))) {
    await ctx.store.revokeOAuthGrant(grant.id, now);
    throw invalidGrant('The refresh token was already used: every token of this authorization is revoked');
  }
  return pair.response;
}

/**
 * RFC 7009: a refresh token ends its whole grant, an access token only itself. Unknown tokens and tokens of other
 * clients change nothing, and the answer is the same, so the endpoint tells nothing about tokens it was shown.
 */
export async function revokeToken(store: OAuthStore, client: OAuthClientRecord, token: string, settings: OAuthSettings): Promise<void> {
  const record = await store.findOAuthToken(hashSecret(token));
  const grant = record ? await store.getOAuthGrant(record.grantId) : null;
  if (!record || !grant || grant.clientId !== client.id) return;
  const now = clockOf(settings).now();
  if (record.kind === 'refresh') await store.revokeOAuthGrant(grant.id, now);
  else await store.revokeOAuthToken(record.tokenHash, now);
}

const invalidToken = () => new DossierError('unauthorized', 'Invalid or expired access token');

/** The principal of an access token presented to `resource`; unauthorized when unknown, expired, revoked or for another resource. */
export async function principalOfAccessToken(
  ctx: ContextPart<never, OAuthStore & AccountStore>,
  token: string,
  resource: string,
  settings: OAuthSettings,
): Promise<Extract<Principal, { kind: 'oauth' }> & { grantId: string }> {
  const now = clockOf(settings).now();
  const record = await ctx.store.findOAuthToken(hashSecret(token));
  if (record?.kind !== 'access' || record.revokedAt || record.expiresAt <= now) throw invalidToken();
  const grant = await ctx.store.getOAuthGrant(record.grantId);
  if (!grant || grant.revokedAt || !sameResource(grant.resource, resource)) throw invalidToken();
  if (!(await requireStillAllowed(ctx, grant))) throw invalidToken();
  return {
    kind: 'oauth',
    accountId: grant.accountId,
    projectId: grant.projectId,
    env: grant.env,
    scopes: grant.scopes,
    clientId: grant.clientId,
    grantId: grant.id,
  };
}
