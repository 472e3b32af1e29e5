import { createHash, randomBytes } from 'node:crypto';

/**
 * Opaque credentials of the authorization server. Each carries a prefix saying what it is (so the router can tell an
 * access token from an API key or a JWT without a lookup) and 256 random bits; only its sha256 is ever stored.
 */
export const OAUTH_TOKEN_PREFIX = { access: 'dso_at_', refresh: 'dso_rt_', code: 'dso_ac_', clientSecret: 'dso_cs_' } as const;

/** A new credential of a kind. */
export const newOAuthSecret = (kind: keyof typeof OAUTH_TOKEN_PREFIX): string => `${OAUTH_TOKEN_PREFIX[kind]}${randomBytes(32).toString('base64url')}`;

/** Whether a bearer credential is one of our access tokens (by its prefix only). */
export const isOAuthAccessToken = (credential: string): boolean => credential.startsWith(OAUTH_TOKEN_PREFIX.access);

/** PKCE verifiers are 43–128 unreserved characters (RFC 7636 §4.1). */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the base64url of 32 bytes: 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isCodeVerifier = (value: string): boolean => VERIFIER.test(value);
export const isS256Challenge = (value: string): boolean => CHALLENGE.test(value);

/** base64url(sha256(verifier)): the S256 transformation of RFC 7636 §4.2. */
export const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');
