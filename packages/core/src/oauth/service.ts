import type { TenancyStore } from '../ports/tenancy-store.ts';
import type { OAuthStore } from '../ports/oauth-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { OAuthScope } from '../auth/principal.ts';
import { hashSecret } from '../auth/secrets.ts';
import type { AuthService } from '../auth/service.ts';
import type { ContextPart } from '../context.ts';
import { type CheckedAuthorization, type ConsentChoice, type OAuthEndpoint, approveAuthorization, checkAuthorization, denyAuthorization } from './authorize.ts';
import { authenticateClient, type ClientCredentials, registerClient } from './clients.ts';
import { connectionService, connectionsOfAdmin } from './connections.ts';
import { OAuthError } from './errors.ts';
import { type PagePurpose, pageSessions } from './page-session.ts';
import { grantableSandboxes } from './sandboxes.ts';
import { parseOAuthInput, revocationRequestSchema, tokenRequestSchema } from './schemas.ts';
import { clockOf, DEFAULT_OAUTH_SETTINGS, type OAuthSettings } from './settings.ts';
import { exchangeCode, principalOfAccessToken, refreshTokens, revokeToken, type TokenResponse } from './tokens.ts';
import type { OAuthService } from '../api/oauth.ts';

/** Expired codes and tokens are deleted at most this often (on the token endpoint's traffic). */
const PRUNE_INTERVAL_MS = 3600_000;
/** A connection's last use is written at most once a minute. */
const TOUCH_INTERVAL_MS = 60_000;
/** How long after a call refused for a missing scope the grant's next refresh asks for a new authorization. */
const STEP_UP_WINDOW_MS = 60_000;

/**
 * The OAuth 2.1 authorization server of the MCP endpoint (issue 18): dynamic registration, the authorization code
 * grant with PKCE S256 and resource indicators, rotating refresh tokens, revocation, and the connected clients admins
 * manage. Every credential it hands out is opaque and stored only as a hash.
 */
export function oauthService(
  ctx: ContextPart<'log' | 'secrets', TenancyStore & OAuthStore & AccountStore>,
  auth: AuthService,
  overrides: Partial<OAuthSettings> = {},
): OAuthService {
  const settings: OAuthSettings = { ...DEFAULT_OAUTH_SETTINGS, ...overrides };
  const clock = clockOf(settings);
  const pages = pageSessions(ctx, settings.pageSessionTtlSeconds);
  let lastPrune = 0;
  const lastTouch = new Map<string, number>();
  /** Grants one of whose calls was just refused for a scope they lack: the scope, and until when it counts (ms). */
  const stepUps = new Map<string, { scope: OAuthScope; until: number }>();

  /** The scope a call of this grant was refused for within the last STEP_UP_WINDOW_MS, once. */
  function takeStepUp(grantId: string): OAuthScope | null {
    const entry = stepUps.get(grantId);
    stepUps.delete(grantId);
    return entry && entry.until > Date.now() ? entry.scope : null;
  }

  function pruneNowAndThen(): void {
    if (Date.now() - lastPrune < PRUNE_INTERVAL_MS) return;
    lastPrune = Date.now();
    ctx.store.pruneOAuthRows(clock.now()).catch((err) => ctx.log.warn('expired OAuth rows not pruned', { error: String(err) }));
  }
  function noteUse(grantId: string): void {
    const now = Date.now();
    if (now - (lastTouch.get(grantId) ?? 0) < TOUCH_INTERVAL_MS) return;
    lastTouch.set(grantId, now);
    ctx.store.touchOAuthGrant(grantId, clock.now()).catch((err) => ctx.log.warn('connection use not recorded', { grantId, error: String(err) }));
  }

  return {
    settings,
    register: (raw: unknown) => registerClient(ctx.store, raw, clock.now()),
    checkAuthorization: (raw: unknown, endpoint: OAuthEndpoint) => checkAuthorization(ctx, raw, endpoint),
    /** Sign in on the consent or connected-clients page: a page session for the next form of that page only. */
    async signIn(raw: unknown, purpose: PagePurpose): Promise<{ session: string; claims: SessionClaims }> {
      const claims = await auth.checkCredentials(raw);
      return { session: await pages.issue(claims, purpose), claims };
    },
    pageSession: (session: string, purpose: PagePurpose) => pages.verify(session, purpose),
    /** A page session for an account signed in another way (single sign-on, issue 42). */
    pageSessionFor: (claims: SessionClaims, purpose: PagePurpose) => pages.issue(claims, purpose),
    /** The sandboxes the account may connect a client to (consent page). */
    sandboxes: (accountId: string) => grantableSandboxes(ctx.store, accountId),
    approve: (request: CheckedAuthorization, claims: SessionClaims, choice: ConsentChoice, endpoint: OAuthEndpoint) =>
      approveAuthorization(ctx, request, claims.accountId, choice, endpoint, { now: clock.now(), expiresAt: clock.after(settings.codeTtlSeconds) }),
    deny: denyAuthorization,
    /** The token endpoint: the client is authenticated first, then its grant type runs. */
    async token(raw: unknown, credentials: ClientCredentials): Promise<TokenResponse> {
      const request = parseOAuthInput(tokenRequestSchema, raw);
      const client = await authenticateClient(ctx, { ...credentials, clientId: request.client_id, clientSecret: request.client_secret });
      pruneNowAndThen();
      if (request.grant_type === 'authorization_code') return exchangeCode(ctx, client, request, settings);
      if (request.grant_type === 'refresh_token') return refreshTokens(ctx, client, request, settings, takeStepUp);
      throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    },
    /** The revocation endpoint (RFC 7009). */
    async revoke(raw: unknown, credentials: ClientCredentials): Promise<void> {
      const request = parseOAuthInput(revocationRequestSchema, raw);
      const client = await authenticateClient(ctx, { ...credentials, clientId: request.client_id, clientSecret: request.client_secret });
      await revokeToken(ctx.store, client, request.token, settings);
    },
    /**
     * A call made with this access token was refused for lacking `scope` (403 insufficient_scope). A client that then
     * refreshes without naming a scope (the MCP SDK's auth() does) gets `invalid_grant` once, within a minute, so it
     * starts a new authorization for `scope` rather than going on with tokens that still lack it.
     */
    async noteStepUp(token: string, scope: OAuthScope): Promise<void> {
      const record = await ctx.store.findOAuthToken(hashSecret(token));
      if (record?.kind !== 'access') return;
      for (const [grantId, entry] of stepUps) if (entry.until <= Date.now()) stepUps.delete(grantId);
      stepUps.set(record.grantId, { scope, until: Date.now() + STEP_UP_WINDOW_MS });
    },
    /** The principal of a bearer access token presented to `resource` (the MCP endpoint's URL). */
    async authenticateAccessToken(token: string, resource: string) {
      const principal = await principalOfAccessToken(ctx, token, resource, settings);
      noteUse(principal.grantId);
      const { grantId: _grant, ...rest } = principal;
      return rest;
    },
    connections: {
      ...connectionService(ctx, clock.now),
      /** Every project the account administers, with its connected clients (the page). */
      ofAdmin: (claims: SessionClaims) => connectionsOfAdmin(ctx, claims, clock.now()),
    },
  };
}

export type { OAuthService };
