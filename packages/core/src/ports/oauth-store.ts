import type { OAuthScope } from '../auth/principal.ts';
import type { Env } from '../domain/types.ts';

/** How a registered client proves itself at the token and revocation endpoints (RFC 7591 §2). */
export type OAuthClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

/** A client registered by dynamic client registration (RFC 7591): an MCP client such as a desktop chat app. */
export interface OAuthClientRecord {
  /** `client_id`, a UUID. */
  id: string;
  /** `client_name`, shown on the consent page and in the connected clients list. */
  name: string | null;
  /** Exact redirect URIs; an authorization request must name one of them. */
  redirectUris: string[];
  authMethod: OAuthClientAuthMethod;
  /** sha256 hex of `client_secret` (confidential clients), null for public ones. */
  secretHash: string | null;
  /** The rest of the registered metadata (client_uri, software_id…), returned as registered. */
  metadata: Record<string, unknown>;
  createdAt: string;
}

/** What one consent grants: a client, acting for an account in one project sandbox, with scopes, for one resource. */
export interface OAuthGrantTerms {
  clientId: string;
  accountId: string;
  projectId: string;
  env: Env;
  scopes: OAuthScope[];
  /** The resource (RFC 8707) the tokens are bound to: the MCP endpoint's URL. */
  resource: string;
}

/** An authorization code (stored by hash), single use, minutes long. */
export interface OAuthCodeRecord extends OAuthGrantTerms {
  codeHash: string;
  /** The grant its exchange creates; a second exchange of the code revokes that grant (RFC 6749 §4.1.2). */
  grantId: string;
  redirectUri: string;
  /** base64url(sha256(code_verifier)): only S256 is accepted. */
  codeChallenge: string;
  expiresAt: string;
  usedAt: string | null;
  createdAt: string;
}

/** A connected client: one consent and the family of tokens rotating from it. Revoking it ends every token. */
export interface OAuthGrantRecord extends OAuthGrantTerms {
  id: string;
  createdAt: string;
  /** The newest refresh token's expiry: after it the grant is gone unless refreshed. */
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** An access or refresh token, stored only as the sha256 hex of its plaintext. */
export interface OAuthTokenRecord {
  tokenHash: string;
  grantId: string;
  kind: 'access' | 'refresh';
  expiresAt: string;
  createdAt: string;
  /** Refresh tokens: when it was exchanged for the next pair. Presenting it again revokes the grant. */
  usedAt: string | null;
  /** An access token revoked on its own (RFC 7009). */
  revokedAt: string | null;
}

/** Clients, codes, grants and tokens of the OAuth 2.1 authorization server (issue 18; part of the MetadataStore). */
export interface OAuthStore {
  createOAuthClient(client: OAuthClientRecord): Promise<void>;
  /** A client by `client_id`; null when unknown. */
  getOAuthClient(id: string): Promise<OAuthClientRecord | null>;
  createOAuthCode(code: OAuthCodeRecord): Promise<void>;
  /**
   * Mark a code used at `at` and return it, with `firstUse` false when it had been used before (the caller then
   * revokes its grant); null when unknown. Two racing calls never both see `firstUse`.
   */
  consumeOAuthCode(codeHash: string, at: string): Promise<{ code: OAuthCodeRecord; firstUse: boolean } | null>;
  /** Create a grant with its first tokens, in one transaction. */
  createOAuthGrant(grant: OAuthGrantRecord, tokens: OAuthTokenRecord[]): Promise<void>;
  /** A grant by id, revoked or not; null when unknown. */
  getOAuthGrant(id: string): Promise<OAuthGrantRecord | null>;
  /** Grants of a project neither revoked nor expired at `now`, newest first (ties by id, descending). */
  listOAuthGrants(projectId: string, now: string): Promise<OAuthGrantRecord[]>;
  /** Revoke a grant at `at` (a revoked grant stays revoked); its tokens stop working. */
  revokeOAuthGrant(id: string, at: string): Promise<void>;
  /** A token by the hash of its plaintext, whatever its state; null when unknown. */
  findOAuthToken(tokenHash: string): Promise<OAuthTokenRecord | null>;
  /**
   * Spend a refresh token and store its successors in one transaction: only when it was unused (returns true);
   * otherwise nothing changes and it returns false. The grant's expiry becomes `grantExpiresAt`, its last use `at`.
   */
  rotateOAuthRefreshToken(tokenHash: string, at: string, next: OAuthTokenRecord[], grantExpiresAt: string): Promise<boolean>;
  /** Revoke one token at `at`. */
  revokeOAuthToken(tokenHash: string, at: string): Promise<void>;
  /** Record that a grant's access token was used at `at`. */
  touchOAuthGrant(id: string, at: string): Promise<void>;
  /** Delete codes and tokens that expired before `before`; returns how many rows went. */
  pruneOAuthRows(before: string): Promise<number>;
}
