/**
 * The oauth group of the public API (`dossier.oauth`, issue 18): the OAuth 2.1 authorization server of the MCP
 * endpoint. Client registration (RFC 7591), the authorization and consent pages, the token and revocation endpoints,
 * bearer-token authentication, and the clients connected to a project. Protocol failures throw `OAuthError` with an
 * RFC 6749 error code (or `OAuthRedirectError`, to be sent back to the client's redirect URI); the server turns them
 * into OAuth error answers.
 */
import type { ProjectPath } from '../agents/service.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { OAuthScope, Principal } from '../auth/principal.ts';
import type { CheckedAuthorization, ConsentChoice, OAuthEndpoint } from '../oauth/authorize.ts';
import type { ClientCredentials, ClientInformation } from '../oauth/clients.ts';
import type { ConnectedClient } from '../oauth/connections.ts';
import type { PagePurpose } from '../oauth/page-session.ts';
import type { GrantableSandbox } from '../oauth/sandboxes.ts';
import type { OAuthSettings } from '../oauth/settings.ts';
import type { TokenResponse } from '../oauth/tokens.ts';

/** A project the account administers, with the OAuth clients connected to it. */
export interface AdminProjectConnections {
  /** The project's org. */
  orgId: string;
  /** The org's name. */
  orgName: string;
  /** The project. */
  projectId: string;
  /** The project's name. */
  projectName: string;
  /** The clients connected to the project, each with its grant. */
  clients: ConnectedClient[];
}

/** The OAuth clients connected to projects (the connected-clients page). */
export interface OAuthConnections {
  /** Every project the account administers, with its connected clients (the page). */
  ofAdmin(claims: SessionClaims): Promise<AdminProjectConnections[]>;
  /**
   * The clients connected to a project.
   * @throws {DossierError} `not_found` (org or project), `forbidden` (not an admin).
   */
  list(claims: SessionClaims, path: ProjectPath): Promise<ConnectedClient[]>;
  /**
   * Revoke a connection: its access and refresh tokens stop working on their next use.
   * @throws {DossierError} `not_found` (project or connection), `forbidden`.
   */
  revoke(claims: SessionClaims, path: ProjectPath, connectionId: string): Promise<void>;
}

/** `dossier.oauth`: the authorization server behind `/oauth/*` and the MCP endpoint's bearer tokens. */
export interface OAuthService {
  /** The lifetimes and limits in force (token, code and page-session lifetimes). */
  readonly settings: OAuthSettings;
  /**
   * Dynamic client registration (RFC 7591): store a client and answer with its id (and secret, for confidential ones).
   * @throws {OAuthError} `invalid_client_metadata`, `invalid_redirect_uri`.
   */
  register(raw: unknown): Promise<ClientInformation>;
  /**
   * Check an authorization request (client, redirect URI, PKCE challenge, scope, resource) before the consent page.
   * @throws {OAuthError} (shown on the page: bad client or redirect URI) or {OAuthRedirectError} (sent to the client).
   */
  checkAuthorization(raw: unknown, endpoint: OAuthEndpoint): Promise<CheckedAuthorization>;
  /**
   * Sign in on the consent or connected-clients page: a page session for the next form of that page only.
   * @throws {DossierError} `unauthorized` (wrong e-mail or password).
   */
  signIn(raw: unknown, purpose: PagePurpose): Promise<{ session: string; claims: SessionClaims }>;
  /**
   * The account of a page session issued for `purpose`.
   * @throws {DossierError} `unauthorized` (invalid, expired or other-purpose session).
   */
  pageSession(session: string, purpose: PagePurpose): Promise<SessionClaims>;
  /** A page session for an account signed in another way (single sign-on, issue 42). */
  pageSessionFor(claims: SessionClaims, purpose: PagePurpose): Promise<string>;
  /** The sandboxes the account may connect a client to (consent page). */
  sandboxes(accountId: string): Promise<GrantableSandbox[]>;
  /**
   * The account approved the request for a sandbox and scopes: store the grant and a code; answer the redirect URL.
   * @throws {OAuthRedirectError} (e.g. `access_denied` for a sandbox the account may not grant).
   */
  approve(request: CheckedAuthorization, claims: SessionClaims, choice: ConsentChoice, endpoint: OAuthEndpoint): Promise<string>;
  /** The account refused: the redirect URL carrying `access_denied`. */
  deny(request: CheckedAuthorization, endpoint: OAuthEndpoint): string;
  /**
   * The token endpoint: the client is authenticated first, then its grant type runs.
   * @throws {OAuthError} `invalid_client`, `invalid_grant`, `invalid_request`, `unsupported_grant_type`.
   */
  token(raw: unknown, credentials: ClientCredentials): Promise<TokenResponse>;
  /**
   * The revocation endpoint (RFC 7009): an unknown token is not an error.
   * @throws {OAuthError} `invalid_client`, `invalid_request`.
   */
  revoke(raw: unknown, credentials: ClientCredentials): Promise<void>;
  /**
   * A call made with this access token was refused for lacking `scope` (403 insufficient_scope). A client that then
   * refreshes without naming a scope (the MCP SDK's auth() does) gets `invalid_grant` once, within a minute, so it
   * starts a new authorization for `scope` rather than going on with tokens that still lack it.
   */
  noteStepUp(token: string, scope: OAuthScope): Promise<void>;
  /**
   * The principal of a bearer access token presented to `resource` (the MCP endpoint's URL).
   * @throws {OAuthError} `invalid_token` (unknown, expired or revoked token, or one issued for another resource).
   */
  authenticateAccessToken(token: string, resource: string): Promise<Extract<Principal, { kind: 'oauth' }>>;
  /** The clients connected to projects, for the connected-clients page. */
  readonly connections: OAuthConnections;
}
