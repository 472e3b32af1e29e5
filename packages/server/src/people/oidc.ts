import { DossierError, type SsoIdentity } from '@dossier/core';
import * as client from 'openid-client';
import type { SsoProviderConfig } from './config.ts';

/** What the callback needs to check the provider's answer: PKCE verifier, state and nonce of the attempt. */
export interface SsoChecks {
  codeVerifier: string;
  state: string;
  nonce: string;
}

/** A new attempt's secrets: the state and nonce are checked on return, the verifier proves the code is ours (PKCE S256). */
export function newSsoChecks(): SsoChecks {
  return { codeVerifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce() };
}

/** A failure talking to the identity provider (discovery, code exchange): its answer is refused, nothing signs in. */
export class SsoProviderError extends Error {}

/**
 * OpenID Connect relying party (issue 42) through `openid-client`: discovery of each provider (cached; retried after a
 * failure), the authorization-code flow with PKCE S256, state and nonce, the `iss` of the authorization response
 * checked (RFC 9207) and the ID token verified (signature, issuer, audience, expiry, nonce).
 */
export function oidcClients(providers: SsoProviderConfig[]) {
  const discovered = new Map<string, Promise<client.Configuration>>();

  function configOf(provider: SsoProviderConfig): Promise<client.Configuration> {
    let found = discovered.get(provider.id);
    if (!found) {
      const execute = provider.allowInsecureHttp ? [client.allowInsecureRequests] : [];
      found = client.discovery(new URL(provider.issuer), provider.clientId, provider.clientSecret, undefined, { execute }).catch((err: unknown) => {
        discovered.delete(provider.id);
        throw new SsoProviderError(`The identity provider ${provider.name} could not be reached or described itself wrongly: ${message(err)}`);
      });
      discovered.set(provider.id, found);
    }
    return found;
  }

  /** The identity the provider vouches for: ID token claims, completed from userinfo when it left the e-mail out. */
  async function identityOf(
    config: client.Configuration,
    provider: SsoProviderConfig,
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  ): Promise<SsoIdentity> {
    const claims = tokens.claims();
    if (!claims) throw new SsoProviderError('The identity provider sent no ID token');
    let profile: Record<string, unknown> = claims;
    if (typeof claims.email !== 'string' || claims[provider.groupsClaim] === undefined) {
      profile = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
    }
    const groups = profile[provider.groupsClaim];
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: typeof profile.email === 'string' ? profile.email : null,
      emailVerified: profile.email_verified === true || profile.email_verified === 'true',
      groups: Array.isArray(groups) ? groups.filter((g) => typeof g === 'string') : [],
    };
  }

  return {
    provider: (id: string): SsoProviderConfig | null => providers.find((p) => p.id === id) ?? null,
    /** Where to send the browser to sign in with the provider. */
    async authorizationUrl(provider: SsoProviderConfig, redirectUri: string, checks: SsoChecks): Promise<string> {
      const config = await configOf(provider);
      const challenge = await client.calculatePKCECodeChallenge(checks.codeVerifier);
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).href;
    },
    /** Exchange the callback's code and verify what comes back; SsoProviderError when anything does not check out. */
    async identity(provider: SsoProviderConfig, callbackUrl: URL, checks: SsoChecks): Promise<SsoIdentity> {
      const config = await configOf(provider);
      try {
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
        return await identityOf(config, provider, tokens);
      } catch (err) {
        if (err instanceof SsoProviderError || err instanceof DossierError) throw err;
        throw new SsoProviderError(`The identity provider's answer was refused: ${message(err)}`);
      }
    },
  };
}

/** The error's message with its cause's (openid-client says "invalid response encountered" and puts why in the cause). */
const message = (err: unknown): string => {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
};

export type OidcClients = ReturnType<typeof oidcClients>;
