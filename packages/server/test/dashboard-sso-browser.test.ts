import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PEOPLE_OPTIONS } from '../src/people/config.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { corpProvider, startTestIdp, type TestIdp } from './oidc-idp.ts';
import { axeViolations, CHROMIUM, launchChromium, ROOT, RUN_BROWSER_TESTS } from './browser-kit.ts';

/**
 * People on a team in the dashboard, in a real browser (issue 42): Debian's Chromium, driven by Playwright, against
 * real servers and a real OpenID provider (oidc-provider, on `localhost`: another site than the servers' 127.0.0.1,
 * as a real identity provider is). The sign-in screen offers the provider beside the password form; signing in with
 * it comes back signed in to the dashboard (the cookie session); a refused person gets a page that says why; the
 * invitation and reset links an admin passes on open their pages (not the dashboard's) and work, the invitation's
 * single sign-on continuing in the dashboard. With password
 * sign-in off, the screen offers the provider only. Every screen is checked with axe-core.
 *
 * Skipped when Chromium is missing, except in CI (CI=true), where .ci/run installs it and a skip would hide a failure.
 */

const RUN = RUN_BROWSER_TESTS;

let idp: TestIdp;
let t: TestServer;
let ssoOnly: TestServer;
let browser: Browser;
let admin: string;

/** A fresh browser (its own cookies) on the server's dashboard, with the page errors it meets. */
async function freshPage(url: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(String(err)));
  await page.goto(url);
  return { page, problems };
}

/** Sign in at the provider's own login form (its development form: any password) as `subject`. */
async function signInAtProvider(page: Page, subject: string): Promise<void> {
  await page.locator('input[name="login"]').waitFor();
  expect(new URL(page.url()).hostname).toBe('localhost');
  await page.locator('input[name="login"]').fill(subject);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
}

describe.runIf(RUN)('signing in to the dashboard as a person on a team', () => {
  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('CI: /usr/bin/chromium is missing (.ci/run installs it)');
    execFileSync(process.execPath, [join(ROOT, 'packages', 'web', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
    idp = await startTestIdp('localhost');
    t = await startTestServer({ config: { workers: 0 }, people: { ...DEFAULT_PEOPLE_OPTIONS, ssoProviders: [corpProvider(idp.issuer)] } });
    const ssoOnlyProvider = corpProvider(idp.issuer);
    ssoOnly = await startTestServer({ config: { workers: 0 }, people: { ...DEFAULT_PEOPLE_OPTIONS, passwordSignIn: false, ssoProviders: [ssoOnlyProvider] } });
    ssoOnlyProvider.groupRoles = [{ group: 'dossier-admins', orgId: ssoOnly.orgId, role: 'admin' }];
    idp.allow([`${t.url}/auth/sso/corp/callback`, `${ssoOnly.url}/auth/sso/corp/callback`]);
    admin = (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([t?.close(), ssoOnly?.close()]);
    await idp?.close();
  });

  it('offers the provider beside the password form, and signs in with it into the dashboard (the cookie session)', async () => {
    const invited = await t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth: admin, json: { email: 'carl@corp.test', role: 'member' } });
    expect(invited.status).toBe(201);
    const { page, problems } = await freshPage(t.url);
    await page.getByRole('heading', { name: 'Sign in to Dossier' }).waitFor();
    await page.getByLabel('Password').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await signInAtProvider(page, 'carl');
    await page.getByText('carl@corp.test').waitFor();
    expect(new URL(page.url()).href).toBe(`${t.url}/`);
    // The session is the httpOnly cookie: scripts never see it, and it survives a reload.
    expect(await page.evaluate<string>('document.cookie')).not.toContain('dossier_session');
    await page.reload();
    await page.getByText('carl@corp.test').waitFor();
    // Carl's first sign-in accepted his invitation: the dashboard acts in the org as a member.
    await page.getByRole('heading', { name: 'Collections' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const sessions = await page.evaluate<{ method: string }[]>("fetch('/v1/auth/sessions').then((r) => r.json())");
    expect(sessions.map((s) => s.method)).toContain('sso');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('says why single sign-on refused someone, with the way back to the sign-in', async () => {
    const { page } = await freshPage(t.url);
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await signInAtProvider(page, 'eve');
    await page.getByRole('heading', { name: 'Single sign-on refused' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('Accounts for evil.test e-mail addresses are not allowed here: ask an admin to invite you');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Back to the sign-in' }).click();
    await page.getByRole('heading', { name: 'Sign in to Dossier' }).waitFor();
    await page.context().close();
  });

  it('opens the invitation and reset links an admin passes on, and the new member signs in to the dashboard', async () => {
    const invitation = await t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth: admin, json: { email: 'dana@example.test', role: 'member' } });
    const { page } = await freshPage(invitation.body.url);
    await page.getByRole('heading', { name: /^Join .+ on Dossier$/ }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Choose a password').fill('a long passphrase for the new member');
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await page.getByRole('link', { name: 'Open the dashboard' }).click();
    await page.getByLabel('E-mail').fill('dana@example.test');
    await page.getByLabel('Password').fill('a long passphrase for the new member');
    await page.keyboard.press('Enter');
    await page.getByText('dana@example.test').waitFor();
    await page.getByRole('heading', { name: 'Collections' }).waitFor();

    const dana = (await t.request('GET', `/v1/orgs/${t.orgId}/members`, { auth: admin })).body.find((m: { email: string }) => m.email === 'dana@example.test');
    const reset = await t.request('POST', `/v1/orgs/${t.orgId}/members/${dana.accountId}/password-reset`, { auth: admin, json: {} });
    await page.goto(reset.body.url);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('New password').fill('another long passphrase, reset');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();
    // Every session ended: the dashboard asks to sign in again, and the new password works.
    await page.getByRole('link', { name: 'Open the dashboard' }).click();
    await page.getByLabel('E-mail').fill('dana@example.test');
    await page.getByLabel('Password').fill('another long passphrase, reset');
    await page.keyboard.press('Enter');
    await page.getByText('dana@example.test').waitFor();
    await page.context().close();
  });

  it('accepts an invitation with single sign-on from its page and continues in the dashboard', async () => {
    // Ivy's domain is not allowed: only the invitation lets her in.
    const invitation = await t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth: admin, json: { email: 'ivy@partner.test', role: 'member' } });
    const { page, problems } = await freshPage(invitation.body.url);
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await signInAtProvider(page, 'ivy');
    await page.getByText('ivy@partner.test').waitFor();
    await page.getByRole('heading', { name: 'Collections' }).waitFor();
    expect((await t.request('GET', `/v1/orgs/${t.orgId}/invitations`, { auth: admin })).body).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('offers only the provider when password sign-in is off, and maps the provider group to the admin role', async () => {
    const { page, problems } = await freshPage(ssoOnly.url);
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).waitFor();
    expect(await page.getByLabel('Password').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await signInAtProvider(page, 'alice');
    await page.getByText('alice@corp.test').waitFor();
    await page.getByRole('heading', { name: 'Collections' }).waitFor();
    const members = await page.evaluate<{ email: string; role: string }[]>(`fetch('/v1/orgs/${ssoOnly.orgId}/members').then((r) => r.json())`);
    expect(members).toContainEqual(expect.objectContaining({ email: 'alice@corp.test', role: 'admin' }));
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
