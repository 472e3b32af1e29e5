import { z } from 'zod';
import { OAUTH_SCOPES } from '../auth/principal.ts';
import { DossierError } from '../domain/errors.ts';
import { parseInput } from '../schemas.ts';
import { OAuthError, type OAuthErrorCode } from './errors.ts';

/** Client authentication methods this server supports (advertised in its metadata). */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
/** Grant types this server supports: OAuth 2.1 keeps only these two for users (no implicit, no password). */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

const text = (max: number) => z.string().max(max);
const url = z.string().max(2000).url();

/**
 * A redirect URI a client may register (OAuth 2.1 §2.3.1, §7.5.1): https, http on a loopback host only (native apps
 * listen on 127.0.0.1 or localhost), or a private-use scheme (`cursor://…`); never a fragment, never `javascript:`,
 * `data:` or `file:`.
 */
export function redirectUriProblem(value: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return `${value.slice(0, 100)} is not an absolute URI`;
  }
  if (parsed.hash) return 'a redirect URI must not have a fragment';
  const scheme = parsed.protocol.slice(0, -1);
  if (['javascript', 'data', 'file', 'vbscript'].includes(scheme)) return `the ${scheme}: scheme is not allowed`;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (scheme === 'http' && !loopback) return 'http redirect URIs must be on a loopback host (localhost, 127.0.0.1, [::1]); use https';
  return null;
}

/**
 * Client metadata of RFC 7591 §2 that this server reads; other fields are kept as sent (the RFC says to ignore what
 * the server does not understand). Defaults are the RFC's.
 */
export const clientRegistrationSchema = z.looseObject({
  redirect_uris: z.array(z.string().max(2000)).min(1, 'at least one redirect URI is required').max(20),
  token_endpoint_auth_method: z.enum(CLIENT_AUTH_METHODS).default('client_secret_basic'),
  grant_types: z.array(z.enum(GRANT_TYPES)).min(1).default(['authorization_code']),
  response_types: z.array(z.literal('code')).min(1).default(['code']),
  client_name: text(200).optional(),
  client_uri: url.optional(),
  logo_uri: url.optional(),
  scope: text(200).optional(),
  contacts: z.array(text(320)).max(10).optional(),
  tos_uri: url.optional(),
  policy_uri: url.optional(),
  software_id: text(200).optional(),
  software_version: text(100).optional(),
});
export type ClientRegistration = z.output<typeof clientRegistrationSchema>;

/** The query of GET /oauth/authorize (and the hidden fields of the login and consent forms that carry it on). */
export const authorizationRequestSchema = z.object({
  response_type: text(50),
  client_id: text(100),
  redirect_uri: text(2000).optional(),
  code_challenge: text(200).optional(),
  code_challenge_method: text(20).optional(),
  scope: text(200).optional(),
  state: text(2000).optional(),
  resource: text(2000).optional(),
});
export type AuthorizationRequest = z.output<typeof authorizationRequestSchema>;

/** The form of POST /oauth/token: grant-specific fields are checked by each grant. */
export const tokenRequestSchema = z.object({
  grant_type: text(100),
  code: text(200).optional(),
  redirect_uri: text(2000).optional(),
  code_verifier: text(200).optional(),
  refresh_token: text(200).optional(),
  scope: text(200).optional(),
  resource: text(2000).optional(),
  client_id: text(100).optional(),
  client_secret: text(200).optional(),
});
export type TokenRequest = z.output<typeof tokenRequestSchema>;

/** The form of POST /oauth/revoke (RFC 7009 §2.1). */
export const revocationRequestSchema = z.object({
  token: text(200),
  token_type_hint: text(50).optional(),
  client_id: text(100).optional(),
  client_secret: text(200).optional(),
});

/** Scopes of a space-separated `scope` parameter, each one of ours; `invalid_scope` otherwise. */
export function parseScopes(scope: string | undefined): (typeof OAUTH_SCOPES)[number][] {
  const names = (scope ?? '').split(' ').filter(Boolean);
  const unknown = names.filter((name) => !(OAUTH_SCOPES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new OAuthError('invalid_scope', `Unknown scope ${unknown.join(', ')}: this server grants ${OAUTH_SCOPES.join(' and ')}`);
  return [...new Set(names)] as (typeof OAUTH_SCOPES)[number][];
}

/** Parse an OAuth request: a schema failure becomes the OAuth error `code` with the same readable description. */
export function parseOAuthInput<S extends z.ZodType>(schema: S, input: unknown, code: OAuthErrorCode = 'invalid_request'): z.output<S> {
  try {
    return parseInput(schema, input);
  } catch (err) {
    if (err instanceof DossierError) throw new OAuthError(code, err.message);
    throw err;
  }
}
