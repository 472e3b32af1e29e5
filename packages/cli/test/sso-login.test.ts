import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PEOPLE_OPTIONS } from '../../server/src/people/config.ts';
import { corpProvider, signInAtProvider, startTestIdp, type TestIdp } from '../../server/test/oidc-idp.ts';
import { dossier, spawnDossier, startTestServer, type TestServer, tempHome } from './helpers.ts';

/**
 * `dossier login --sso <provider>` (issue 42) against a real server and a real OpenID provider (oidc-provider, as in
 * the server's SSO suite): the CLI prints the address, the test is the browser (the provider's login form, then the
 * redirect to the CLI's loopback listener), and the CLI redeems the one-time code for a session it saves.
 */

let idp: TestIdp;
let t: TestServer;
let home: { home: string; cleanup: () => void };
const env = () => ({ SERVICE_BASE_URL: t.url, SERVICE_ORG_ID: t.orgId, SERVICE_PROJECT_ID: t.projectId });

beforeAll(async () => {
  idp = await startTestIdp();
  t = await startTestServer({ config: { workers: 0 }, people: { ...DEFAULT_PEOPLE_OPTIONS, ssoProviders: [corpProvider(idp.issuer)] } });
  idp.allow([`${t.url}/auth/sso/corp/callback`]);
  home = tempHome();
});
afterAll(async () => {
  home?.cleanup();
  await t?.close();
  await idp?.close();
});

/** Be the person at the browser: the printed address, the provider's form as `subject`, then the redirect to the CLI. */
async function browse(printed: string, subject: string): Promise<{ loopback: string; status: number; text: string }> {
  const startUrl = /^(http:\/\/\S+\/auth\/sso\/corp\/start\?\S+)$/m.exec(printed)?.[1];
  expect(startUrl, printed).toBeDefined();
  const answer = await signInAtProvider(startUrl!, subject);
  const loopback = (await fetch(answer, { redirect: 'manual' })).headers.get('location') ?? '';
  const page = await fetch(loopback);
  return { loopback, status: page.status, text: await page.text() };
}

describe('dossier login --sso (issue 42)', () => {
  it('signs in through the browser and keeps the session like a password login', async () => {
    const admin = (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
    expect((await t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth: admin, json: { email: 'carl@corp.test', role: 'member' } })).status).toBe(201);
    const login = await spawnDossier(home.home, ['login', '--sso', 'corp', '--no-browser'], { env: env() });
    const printed = await login.until('stderr', /\/auth\/sso\/corp\/start\?\S+\n/);
    expect(printed).toMatch(/then=cli&port=\d+&challenge=[\w-]{43}/);
    const browser = await browse(printed, 'carl');
    expect(browser.loopback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=[\w-]+$/);
    expect([browser.status, browser.text]).toEqual([200, expect.stringContaining('return to the terminal')]);
    expect(await login.exit()).toBe(0);
    expect(login.output.stderr).toContain(`logged in as carl@corp.test at ${t.url}`);
    // The saved session acts as carl, a member since his first sign-in accepted the invitation: members read, admins write.
    const sources = await dossier(home.home, ['sources', 'list', '--json'], { env: env() });
    expect(sources.code, sources.stderr).toBe(0);
    const members = await dossier(home.home, ['members', 'list'], { env: env() });
    expect([members.code, members.stderr]).toEqual([5, expect.stringContaining('needs the admin role in the org')]);
  });

  it('stops with the refusal when the provider signs in someone the server does not allow', async () => {
    const login = await spawnDossier(home.home, ['login', '--sso', 'corp', '--no-browser', '--json'], { env: env() });
    const browser = await browse(await login.until('stderr', /\/auth\/sso\/corp\/start\?\S+\n/), 'eve');
    expect([browser.status, browser.text]).toEqual([400, expect.stringContaining('Accounts for evil.test e-mail addresses are not allowed here')]);
    expect(await login.exit()).toBe(5);
    expect(login.output.stderr).toContain('single sign-on failed: Single sign-on refused: Accounts for evil.test e-mail addresses are not allowed here');
  });

  it('names the providers the server has when asked for another, and refuses --sso with --email', async () => {
    const unknown = await dossier(home.home, ['login', '--sso', 'okta'], { env: env() });
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('the server offers: corp')]);
    const both = await dossier(home.home, ['login', '--sso', 'corp', '--email', 'carl@corp.test'], { env: env() });
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('--sso and --email do not go together')]);
  });
});
