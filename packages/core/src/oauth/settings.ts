/** Lifetimes of the authorization server's credentials, and its clock (tests move it instead of waiting). */
export interface OAuthSettings {
  /** Access tokens are short-lived: a leaked one is useful for minutes, and revocation is checked on every use anyway. */
  accessTokenTtlSeconds: number;
  /** Each refresh gives a new refresh token with a fresh lifetime; an unused grant lapses after this long. */
  refreshTokenTtlSeconds: number;
  /** Authorization codes (RFC 6749 §4.1.2 recommends at most 10 minutes). */
  codeTtlSeconds: number;
  /** How long the login on the consent and connected-clients pages stays valid for the next form. */
  pageSessionTtlSeconds: number;
  /** The clock of codes and tokens (tests move it to expire them). */
  now: () => Date;
}

export const DEFAULT_OAUTH_SETTINGS: Readonly<OAuthSettings> = Object.freeze({
  accessTokenTtlSeconds: 15 * 60,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
  codeTtlSeconds: 5 * 60,
  pageSessionTtlSeconds: 10 * 60,
  now: () => new Date(),
});

/** The settings' clock as ISO strings: now, and `seconds` from now. */
export function clockOf(settings: Pick<OAuthSettings, 'now'>) {
  return {
    now: (): string => settings.now().toISOString(),
    after: (seconds: number): string => new Date(settings.now().getTime() + seconds * 1000).toISOString(),
  };
}
