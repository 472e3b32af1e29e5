import { DossierError } from '../domain/errors.ts';

/** Error codes of OAuth 2.1 (RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8707 §2, RFC 7009 §2.2.1). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri';

/**
 * A refusal of the OAuth endpoints: the server answers `{error: <oauthCode>, error_description: <message>}` as the
 * RFCs require (not the API's `{error: message}`); `invalid_client` is 401, the rest 400.
 */
export class OAuthError extends DossierError {
  readonly oauthCode: OAuthErrorCode;

  constructor(oauthCode: OAuthErrorCode, description: string) {
    super(oauthCode === 'invalid_client' ? 'unauthorized' : 'invalid_input', description);
    this.name = 'OAuthError';
    this.oauthCode = oauthCode;
  }
}

export const isOAuthError = (err: unknown): err is OAuthError => err instanceof OAuthError;

/**
 * A refusal of an authorization request whose client and redirect URI are known: the user agent is sent back to the
 * client with the error (RFC 6749 §4.1.2.1). Before those are known, the server shows the error instead.
 */
export class OAuthRedirectError extends OAuthError {
  /** Where to send the user agent: the redirect URI with error, error_description, state and iss. */
  readonly location: string;

  constructor(oauthCode: OAuthErrorCode, description: string, location: string) {
    super(oauthCode, description);
    this.name = 'OAuthRedirectError';
    this.location = location;
  }
}
