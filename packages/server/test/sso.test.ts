import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PEOPLE_OPTIONS, type SsoProviderConfig } from '../src/people/config.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { authorizeParams, call, hiddenValue, pkcePair, postForm, registerClient } from './oauth-client.ts';

/**
 * Single sign-on with OpenID Connect (issue 42), end to end against a real OpenID provider running in the test (the
 * `oidc-provider` package, its development login form driven like a browser would): first sign-in by allowed domain,
 * group-to-role mapping, invited people outside the domains, the consent page of an MCP client, and the refusals: a
 * replayed answer, a wrong issuer, a domain not allowed and an unverified e-mail. A second server has password
 * sign-in turned off.
 */

/** The provider's people, by subject. */
const PEOPLE: Record<string, { email: string; email_verified: boolean; groups: string[] }> = {
  alice: { email: 'alice@corp.test', email_verified: true, groups: ['dossier-admins'] },
  carl: { email: 'carl@corp.test', email_verified: true, groups: [] },
  eve: { email: 'eve@evil.test', email_verified: true, groups: [] },
  bob: { email: 'bob@corp.test', email_verified: false, groups: [] },
  ivy: { email: 'ivy@partner.test', email_verified: true, groups: [] },
};

let idp: Server;
let issuer: string;
let t: TestServer;
let ssoOnly: TestServer;
let admin: string;

/** Dossier's provider settings (the org of the group mapping is set once the server has bootstrapped it). */
const corp = (): SsoProviderConfig => ({
  id: 'corp', name: 'Corp ID', issuer, clientId: 'dossier', clientSecret: 'dossier-client-secret', allowedDomains: ['corp.test'], groupsClaim: 'groups',
  groupRoles: [], allowInsecureHttp: true,
});

/** The OpenID provider: one confidential client (both Dossier servers' callbacks), PKCE required, consent implied. */
function openIdProvider(callbacks: string[]) {
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'dossier', client_secret: 'dossier-client-secret', redirect_uris: callbacks, grant_types: ['authorization_code'], response_types: ['code'] }],
    findAccount: async (_ctx: unknown, sub: string) => (PEOPLE[sub] ? { accountId: sub, claims: async () => ({ sub, ...PEOPLE[sub] }) } : undefined),
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

let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();

beforeAll(async () => {
  idp = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  t = await startTestServer({ config: { workers: 0 }, people: { ...DEFAULT_PEOPLE_OPTIONS, ssoProviders: [corp()] } });
  const ssoOnlyProvider = corp();
  ssoOnly = await startTestServer({ config: { workers: 0 }, people: { ...DEFAULT_PEOPLE_OPTIONS, passwordSignIn: false, ssoProviders: [ssoOnlyProvider] } });
  ssoOnlyProvider.groupRoles = [{ group: 'dossier-admins', orgId: ssoOnly.orgId, role: 'admin' }];
  handle = openIdProvider([`${t.url}/auth/sso/corp/callback`, `${ssoOnly.url}/auth/sso/corp/callback`]).callback();
  admin = (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
});
afterAll(async () => {
  await Promise.all([t?.close(), ssoOnly?.close()]);
  await new Promise<void>((resolve) => idp?.close(() => resolve()));
});

/**
 * Be the browser: from Dossier's start URL through the provider's login form (as `subject`), until the provider
 * redirects back to Dossier's callback; returns that callback URL (not yet opened).
 */
async function signInAtProvider(startUrl: string, subject: string): Promise<string> {
  const cookies = new Map<string, string>();
  let url = startUrl;
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 12; step++) {
    const res = await fetch(url, {
      redirect: 'manual', method: form ? 'POST' : 'GET', body: form,
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    for (const c of res.headers.getSetCookie()) cookies.set(c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1, c.indexOf(';')));
    const text = await res.text();
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url).href;
      if (next.includes('/auth/sso/corp/callback')) return next;
      [url, form] = [next, undefined];
    } else if (res.status === 200 && url.includes('/interaction/')) {
      form = new URLSearchParams({ prompt: 'login', login: subject, password: 'any' });
    } else {
      throw new Error(`unexpected ${res.status} at ${url}: ${text.slice(0, 300)}`);
    }
  }
  throw new Error('the provider never redirected back');
}

const tokenOnPage = (page: string): string => /id="token" type="password" readonly value="([^"]+)"/.exec(page)![1]!;

describe('single sign-on with OpenID Connect', () => {
  it('lists the providers, creates the account of an allowed domain, maps its group to a role, and replays nothing', async () => {
    const listed = await t.request('GET', '/v1/auth/sso/providers', { auth: null });
    expect(listed.body).toEqual({ passwordSignIn: true, providers: [{ id: 'corp', name: 'Corp ID', startUrl: `${t.url}/auth/sso/corp/start` }] });
    const answer = await signInAtProvider(`${t.url}/auth/sso/corp/start`, 'carl');
    const page = await call(answer);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Signed in as carl@corp.test');
    const token = tokenOnPage(page.body);
    expect((await t.request('GET', '/v1/orgs', { auth: token })).body).toEqual([]);
    const sessions = await t.request('GET', '/v1/auth/sessions', { auth: token });
    expect(sessions.body.map((s: { method: string }) => s.method)).toEqual(['sso']);
    const replayed = await call(answer);
    expect([replayed.status, replayed.body]).toEqual([400, expect.stringContaining('This sign-in has expired or was already used')]);
    // The same person again: the linked account, not a new one.
    const again = tokenOnPage((await call(await signInAtProvider(`${t.url}/auth/sso/corp/start`, 'carl'))).body);
    expect((await t.request('GET', '/v1/auth/account', { auth: again })).body.id).toBe((await t.request('GET', '/v1/auth/account', { auth: token })).body.id);
  });

  it('refuses an answer from the wrong issuer, an e-mail outside the allowed domains and an unverified e-mail', async () => {
    const answer = new URL(await signInAtProvider(`${t.url}/auth/sso/corp/start`, 'carl'));
    answer.searchParams.set('iss', 'http://127.0.0.1:9/impostor');
    const mixedUp = await call(answer.href);
    expect([mixedUp.status, mixedUp.body]).toEqual([502, expect.stringMatching(/answer was refused: .*iss/)]);
    const outsider = await call(await signInAtProvider(`${t.url}/auth/sso/corp/start`, 'eve'));
    expect([outsider.status, outsider.body]).toEqual([403, expect.stringContaining('Accounts for evil.test e-mail addresses are not allowed here')]);
    const unverified = await call(await signInAtProvider(`${t.url}/auth/sso/corp/start`, 'bob'));
    expect([unverified.status, unverified.body]).toEqual([403, expect.stringContaining('has not verified this e-mail address')]);
    expect((await t.request('GET', `/v1/orgs/${t.orgId}/members`, { auth: admin })).body.map((m: { email: string }) => m.email)).not.toContain('eve@evil.test');
  });

  it('accepts the invitation of a person outside the allowed domains at their first sign-in', async () => {
    const invited = await t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth: admin, json: { email: 'ivy@partner.test', role: 'member' } });
    expect(invited.status).toBe(201);
    const page = await call(await signInAtProvider(`${t.url}/auth/sso/corp/start`, 'ivy'));
    const token = tokenOnPage(page.body);
    expect((await t.request('GET', `/v1/orgs/${t.orgId}/projects`, { auth: token })).status).toBe(200);
    expect((await t.request('GET', `/v1/orgs/${t.orgId}/invitations`, { auth: admin })).body).toEqual([]);
  });

  it('signs an MCP client\'s user in on the consent flow and shows the consent page', async () => {
    const client = await registerClient(t);
    const params = authorizeParams(t, client.client_id, pkcePair().challenge);
    const query = new URLSearchParams(params as Record<string, string>).toString();
    const login = await call(`${t.url}/oauth/authorize?${query}`);
    expect(login.body).toContain(`/auth/sso/corp/start?${query.replace(/&/g, '&#38;')}`);
    const consent = await call(await signInAtProvider(`${t.url}/auth/sso/corp/start?${query}`, 'carl'));
    expect(consent.status).toBe(200);
    expect(consent.body).toContain('Signed in as <strong>carl@corp.test</strong>');
    const denied = await postForm(`${t.url}/oauth/authorize/consent`, { ...params, session: hiddenValue(consent.body, 'session'), decision: 'deny' });
    expect(denied.location?.searchParams.get('error')).toBe('access_denied');
  });
});

describe('a server with password sign-in turned off', () => {
  it('refuses passwords everywhere and signs people in with the provider, their group making them admins', async () => {
    const password = await ssoOnly.request('POST', '/v1/auth/login', { auth: null, json: { email: ssoOnly.email, password: ssoOnly.password } });
    expect([password.status, password.body.error]).toEqual([403, 'Password sign-in is turned off on this server: sign in with single sign-on']);
    const client = await registerClient(ssoOnly);
    const query = new URLSearchParams(authorizeParams(ssoOnly, client.client_id, pkcePair().challenge) as Record<string, string>).toString();
    const login = await call(`${ssoOnly.url}/oauth/authorize?${query}`);
    expect(login.body).toContain('Sign in with Corp ID');
    expect(login.body).not.toContain('name="password"');
    const page = await call(await signInAtProvider(`${ssoOnly.url}/auth/sso/corp/start`, 'alice'));
    const token = tokenOnPage(page.body);
    expect((await ssoOnly.request('GET', '/v1/orgs', { auth: token })).body.map((o: { id: string }) => o.id)).toEqual([ssoOnly.orgId]);
    expect((await ssoOnly.request('POST', `/v1/orgs/${ssoOnly.orgId}/projects`, { auth: token, json: { name: 'By alice' } })).status).toBe(201);
    const page2 = await call(`${ssoOnly.url}/oauth/connected-clients`);
    expect(page2.body).toContain('/auth/sso/corp/start?then=connected-clients');
    expect(page2.body).not.toContain('name="password"');
    const connections = await call(await signInAtProvider(`${ssoOnly.url}/auth/sso/corp/start?then=connected-clients`, 'alice'));
    expect([connections.status, connections.body]).toEqual([200, expect.stringContaining('Signed in as <strong>alice@corp.test</strong>. Disconnecting a client')]);
    // Carl, not in the group, gets an account (allowed domain) but no org.
    const carl = tokenOnPage((await call(await signInAtProvider(`${ssoOnly.url}/auth/sso/corp/start`, 'carl'))).body);
    expect((await ssoOnly.request('GET', '/v1/orgs', { auth: carl })).body).toEqual([]);
  });
});
