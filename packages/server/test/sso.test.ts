import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PEOPLE_OPTIONS } from '../src/people/config.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { corpProvider, signInAtProvider, startTestIdp, type TestIdp } from './oidc-idp.ts';
import { authorizeParams, call, hiddenValue, pkcePair, postForm, registerClient } from './oauth-client.ts';

/**
 * Single sign-on with OpenID Connect (issue 42), end to end against a real OpenID provider running in the test (the
 * `oidc-provider` package, its development login form driven like a browser would): first sign-in by allowed domain,
 * group-to-role mapping, invited people outside the domains, the consent page of an MCP client, and the refusals: a
 * replayed answer, a wrong issuer, a domain not allowed and an unverified e-mail. A second server has password
 * sign-in turned off.
 */

let idp: TestIdp;
let t: TestServer;
let ssoOnly: TestServer;
let admin: string;

beforeAll(async () => {
  idp = await startTestIdp();
  t = await startTestServer({ config: { workers: 0 }, people: { ...DEFAULT_PEOPLE_OPTIONS, ssoProviders: [corpProvider(idp.issuer)] } });
  const ssoOnlyProvider = corpProvider(idp.issuer);
  ssoOnly = await startTestServer({ config: { workers: 0 }, people: { ...DEFAULT_PEOPLE_OPTIONS, passwordSignIn: false, ssoProviders: [ssoOnlyProvider] } });
  ssoOnlyProvider.groupRoles = [{ group: 'dossier-admins', orgId: ssoOnly.orgId, role: 'admin' }];
  idp.allow([`${t.url}/auth/sso/corp/callback`, `${ssoOnly.url}/auth/sso/corp/callback`]);
  admin = (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
});
afterAll(async () => {
  await Promise.all([t?.close(), ssoOnly?.close()]);
  await idp?.close();
});

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

  it("signs an MCP client's user in on the consent flow and shows the consent page", async () => {
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

describe('single sign-on started by the dashboard and by the CLI', () => {
  it('refuses an answer opened in a browser that did not start the dashboard sign-in, and bad `then` targets', async () => {
    const start = await call(`${t.url}/auth/sso/corp/start?then=dashboard`);
    expect(start.status).toBe(302);
    expect(start.headers.getSetCookie().join('\n')).toMatch(/dossier_sso=[\w-]+; path=\/auth\/sso; expires=.*samesite=lax; httponly/i);
    // The answer of a sign-in started elsewhere (an attacker's), opened without the starting browser's cookie.
    const elsewhere = await call(await signInAtProvider(`${t.url}/auth/sso/corp/start?then=dashboard`, 'carl'));
    expect([elsewhere.status, elsewhere.body]).toEqual([403, expect.stringContaining('This sign-in was started in another browser')]);
    expect(elsewhere.headers.getSetCookie().join('')).not.toContain('dossier_session=');
    expect(elsewhere.body).toContain('<a href="/">Back to the sign-in</a>');
    const unknown = await call(`${t.url}/auth/sso/corp/start?then=elsewhere`);
    expect([unknown.status, unknown.body]).toEqual([400, expect.stringContaining('then: expected dashboard, cli or connected-clients')]);
    const noPort = await call(`${t.url}/auth/sso/corp/start?then=cli&challenge=${pkcePair().challenge}`);
    expect([noPort.status, noPort.body]).toEqual([400, expect.stringContaining('then=cli needs port')]);
    const noChallenge = await call(`${t.url}/auth/sso/corp/start?then=cli&port=45000`);
    expect([noChallenge.status, noChallenge.body]).toEqual([400, expect.stringContaining('then=cli needs challenge')]);
  });

  it("hands the CLI's loopback a one-time code only its verifier redeems, or the refusal", async () => {
    const pkce = pkcePair();
    const startCli = `${t.url}/auth/sso/corp/start?then=cli&port=45123&challenge=${pkce.challenge}`;
    const handedOff = (await call(await signInAtProvider(startCli, 'carl'))).location!;
    expect(`${handedOff.origin}${handedOff.pathname}`).toBe('http://127.0.0.1:45123/callback');
    const code = handedOff.searchParams.get('code')!;
    const redeem = (verifier: string, codeOf = code) => t.request('POST', '/v1/auth/sso/token', { auth: null, json: { code: codeOf, verifier } });
    expect((await redeem(pkcePair().verifier)).status).toBe(401); // another verifier: refused, and the code is spent
    expect([(await redeem(pkce.verifier)).status, (await redeem(pkce.verifier)).body.error]).toEqual([
      404,
      expect.stringContaining('expired or was already used'),
    ]);
    const again = (await call(await signInAtProvider(startCli, 'carl'))).location!.searchParams.get('code')!;
    const signedIn = await redeem(pkce.verifier, again);
    expect([signedIn.status, signedIn.body.user.email]).toEqual([200, 'carl@corp.test']);
    expect((await t.request('GET', '/v1/auth/account', { auth: signedIn.body.token })).body.email).toBe('carl@corp.test');
    expect((await t.request('POST', '/v1/auth/sso/token', { auth: null, json: { code: 'x' } })).status).toBe(400);
    const refused = (await call(await signInAtProvider(startCli, 'eve'))).location!;
    expect(refused.searchParams.get('error')).toMatch(/^Single sign-on refused: Accounts for evil.test e-mail addresses are not allowed here/);
    expect(refused.searchParams.get('code')).toBeNull();
  });
});

describe('a server with password sign-in turned off', () => {
  it('refuses passwords everywhere and signs people in with the provider, their group making them admins', async () => {
    const password = await ssoOnly.request('POST', '/v1/auth/login', { auth: null, json: { email: ssoOnly.email, password: ssoOnly.password } });
    expect([password.status, password.body.error]).toEqual([403, 'Password sign-in is turned off on this server: sign in with single sign-on']);
    const dashboard = await ssoOnly.request('POST', '/v1/dashboard/session', { auth: null, json: { email: ssoOnly.email, password: ssoOnly.password } });
    expect([dashboard.status, dashboard.body.error]).toEqual([403, 'Password sign-in is turned off on this server: sign in with single sign-on']);
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
    expect([connections.status, connections.body]).toEqual([
      200,
      expect.stringContaining('Signed in as <strong>alice@corp.test</strong>. Disconnecting a client'),
    ]);
    // Carl, not in the group, gets an account (allowed domain) but no org.
    const carl = tokenOnPage((await call(await signInAtProvider(`${ssoOnly.url}/auth/sso/corp/start`, 'carl'))).body);
    expect((await ssoOnly.request('GET', '/v1/orgs', { auth: carl })).body).toEqual([]);
  });
});
