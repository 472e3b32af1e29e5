import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { SsoProviderConfig } from '../src/people/config.ts';

/**
 * A real OpenID provider for the single sign-on tests (issue 42): the `oidc-provider` package with one confidential
 * client, PKCE required, consent implied and its development login form (any password), whose people are below.
 */

/** The provider's people, by subject. */
export const IDP_PEOPLE: Record<string, { email: string; email_verified: boolean; groups: string[] }> = {
  alice: { email: 'alice@corp.test', email_verified: true, groups: ['dossier-admins'] },
  carl: { email: 'carl@corp.test', email_verified: true, groups: [] },
  eve: { email: 'eve@evil.test', email_verified: true, groups: [] },
  bob: { email: 'bob@corp.test', email_verified: false, groups: [] },
  ivy: { email: 'ivy@partner.test', email_verified: true, groups: [] },
};

export const IDP_CLIENT = { id: 'dossier', secret: 'dossier-client-secret' };

/** The OpenID provider: one confidential client (the Dossier servers' callbacks), PKCE required, consent implied. */
function openIdProvider(issuer: string, callbacks: string[]) {
  const provider = new Provider(issuer, {
    clients: [
      { client_id: IDP_CLIENT.id, client_secret: IDP_CLIENT.secret, redirect_uris: callbacks, grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    findAccount: async (_ctx: unknown, sub: string) => (IDP_PEOPLE[sub] ? { accountId: sub, claims: async () => ({ sub, ...IDP_PEOPLE[sub] }) } : undefined),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['groups'] },
    cookies: { keys: ['a cookie signing key for the test provider'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    // Consent is implied (a first-party client): the login form is the only interaction.
    loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId: string } } & Record<string, never> }) => {
      const grant = new provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  return provider;
}

export interface TestIdp {
  issuer: string;
  /** Start answering, with the redirect URIs of the Dossier servers (known once they listen). */
  allow(callbacks: string[]): void;
  close(): Promise<void>;
}

/**
 * Listen (every interface of the loopback, so `localhost` works on IPv4 and IPv6); `hostName` is the issuer's host:
 * `localhost` makes the provider another site than Dossier's 127.0.0.1 in a browser.
 */
export async function startTestIdp(hostName = '127.0.0.1'): Promise<TestIdp> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, hostName === '127.0.0.1' ? '127.0.0.1' : '::', resolve));
  const issuer = `http://${hostName}:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    allow: (callbacks) => {
      handle = openIdProvider(issuer, callbacks).callback();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Dossier's settings of the test provider (id `corp`, the domain corp.test allowed). */
export const corpProvider = (issuer: string): SsoProviderConfig => ({
  id: 'corp',
  name: 'Corp ID',
  issuer,
  clientId: IDP_CLIENT.id,
  clientSecret: IDP_CLIENT.secret,
  allowedDomains: ['corp.test'],
  groupsClaim: 'groups',
  groupRoles: [],
  allowInsecureHttp: true,
});

/**
 * Be the browser: from Dossier's start URL through the provider's login form (as `subject`), until the provider
 * redirects back to Dossier's callback; returns that callback URL (not yet opened).
 */
export async function signInAtProvider(startUrl: string, subject: string): Promise<string> {
  const cookies = new Map<string, string>();
  let url = startUrl;
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 12; step++) {
    const res = await fetch(url, {
      redirect: 'manual',
      method: form ? 'POST' : 'GET',
      body: form,
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    for (const c of res.headers.getSetCookie()) cookies.set(c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1, c.indexOf(';')));
    const text = await res.text();
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url).href;
      if (/\/auth\/sso\/[^/]+\/callback/.test(next)) return next;
      [url, form] = [next, undefined];
    } else if (res.status === 200 && url.includes('/interaction/')) {
      form = new URLSearchParams({ prompt: 'login', login: subject, password: 'any' });
    } else {
      throw new Error(`unexpected ${res.status} at ${url}: ${text.slice(0, 300)}`);
    }
  }
  throw new Error('the provider never redirected back');
}
