import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';

/**
 * The dashboard's server side (issue 34): its files at `/` with the single-page fallback, cache headers and CSP;
 * the cookie session (httpOnly, SameSite=Strict), which acts in the sandbox its headers name for members only, and
 * refuses writes without the CSRF token.
 */

let t: TestServer;
let buildDir: string;
const PAGE = '<!doctype html><html lang="en"><title>Dossier</title><script type="module" src="/assets/app-1a2b.js"></script></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), 'dossier-web-build-'));
  mkdirSync(join(buildDir, 'assets'));
  writeFileSync(join(buildDir, 'index.html'), PAGE);
  writeFileSync(join(buildDir, 'assets', 'app-1a2b.js'), SCRIPT);
  writeFileSync(join(buildDir, 'assets', 'app-1a2b.js.gz'), gzipSync(SCRIPT));
  writeFileSync(join(buildDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  t = await startTestServer({ dashboard: { dir: buildDir } });
});
afterAll(async () => {
  await t?.close();
  rmSync(buildDir, { recursive: true, force: true });
});

const navigate = (path: string) => fetch(`${t.url}${path}`, { headers: { accept: 'text/html,application/xhtml+xml' } });

/** Sign in through the dashboard route: the cookies as a browser would send them back, and the CSRF token. */
async function signIn(email = t.email, password = t.password): Promise<{ cookie: string; csrf: string; setCookie: string[] }> {
  const res = await fetch(`${t.url}/v1/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { csrfToken: string };
  const setCookie = res.headers.getSetCookie();
  const cookie = setCookie.map((c) => c.split(';')[0]).join('; ');
  return { cookie, csrf: body.csrfToken, setCookie };
}

describe('dashboard files', () => {
  it("types its API calls with the CLI's generated types (scripts/generate-api-types.ts writes both)", () => {
    const root = join(import.meta.dirname, '..', '..');
    expect(readFileSync(join(root, 'web', 'src', 'api.gen.ts'), 'utf8')).toBe(readFileSync(join(root, 'cli', 'src', 'api.gen.ts'), 'utf8'));
  });

  it('serves the page at / and at client routes, with its CSP, revalidated on every load', async () => {
    for (const path of ['/', '/collections/abc/documents', '/sign-in']) {
      const res = await navigate(path);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toBe(PAGE);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('serves hashed assets for a year, gzipped when the client takes it', async () => {
    const res = await fetch(`${t.url}/assets/app-1a2b.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toContain('text/javascript');
    expect(await res.text()).toBe(SCRIPT); // fetch decodes it
    const icon = await fetch(`${t.url}/favicon.svg`);
    expect(icon.headers.get('cache-control')).toBe('no-cache');
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('answers 404 for missing assets and paths outside the build, and leaves the API alone', async () => {
    expect((await navigate('/assets/missing-1234.js')).status).toBe(404);
    expect((await navigate('/%2e%2e/%2e%2e/package.json')).status).not.toBe(200);
    expect((await navigate('/..%2f..%2fpackage.json')).headers.get('content-type')).not.toContain('javascript');
    const api = await navigate('/v1/nothing-here');
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
    expect((await fetch(`${t.url}/v1/health`)).status).toBe(200);
    // An API client asking for anything gets the API's JSON 404, not the page.
    expect((await fetch(`${t.url}/no-such-page`)).headers.get('content-type')).toContain('application/json');
  });
});

describe('dashboard session', () => {
  it('signs in with an httpOnly, SameSite=Strict cookie, and reads the session back after a reload', async () => {
    const { cookie, csrf, setCookie } = await signIn();
    expect(setCookie.find((c) => c.startsWith('dossier_session='))).toMatch(/httponly/i);
    expect(setCookie.find((c) => c.startsWith('dossier_session='))).toMatch(/samesite=strict/i);
    expect(setCookie.find((c) => c.startsWith('dossier_csrf='))).toMatch(/httponly/i);
    const res = await fetch(`${t.url}/v1/dashboard/session`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: { id: expect.any(String), email: t.email }, csrfToken: csrf });
    expect((await fetch(`${t.url}/v1/orgs`, { headers: { cookie } })).status).toBe(200);
  });

  it("refuses a sign-in sent from another site's page", async () => {
    const send = (origin: string) =>
      fetch(`${t.url}/v1/dashboard/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ email: t.email, password: t.password }),
      });
    const res = await send('https://evil.example');
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await send(t.url)).status).toBe(200);
  });

  it('refuses wrong credentials and reads without a session', async () => {
    const res = await fetch(`${t.url}/v1/dashboard/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: t.email, password: 'wrong password!' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await fetch(`${t.url}/v1/dashboard/session`)).status).toBe(401);
    expect((await fetch(`${t.url}/v1/dashboard/session`, { headers: { cookie: 'dossier_session=forged.token.value' } })).status).toBe(401);
  });

  it('acts in the sandbox its headers name, and refuses writes without the CSRF token', async () => {
    const { cookie, csrf } = await signIn();
    const sandbox = { cookie, 'x-dossier-project': t.projectId, 'x-dossier-env': 'test' };
    const create = (headers: Record<string, string>) =>
      fetch(`${t.url}/v1/collections`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ projectId: t.projectId, name: 'from the dashboard' }),
      });
    expect((await create(sandbox)).status).toBe(403);
    expect((await create({ ...sandbox, 'x-dossier-csrf': 'not-the-token' })).status).toBe(403);
    const made = await create({ ...sandbox, 'x-dossier-csrf': csrf });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    // It was made in the test sandbox: the test key sees it, the live key does not.
    expect((await t.request('GET', `/v1/collections/${id}`, { auth: t.testKey })).status).toBe(200);
    expect((await t.request('GET', `/v1/collections/${id}`)).status).toBe(404);
    const list = await fetch(`${t.url}/v1/collections`, { headers: sandbox });
    expect(((await list.json()) as { id: string }[]).map((c) => c.id)).toContain(id);
    // Without a sandbox named, a data-plane route sees no caller.
    expect((await fetch(`${t.url}/v1/collections`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${t.url}/v1/collections`, { headers: { ...sandbox, 'x-dossier-env': 'prod' } })).status).toBe(400);
  });

  it('is refused in projects of orgs the person is not a member of', async () => {
    const other = (await t.server.dossier.auth.bootstrap('outsider@example.test', 'an outsider password'))!;
    const { cookie } = await signIn('outsider@example.test', 'an outsider password');
    const res = await fetch(`${t.url}/v1/collections`, { headers: { cookie, 'x-dossier-project': t.projectId, 'x-dossier-env': 'live' } });
    expect(res.status).toBe(404);
    const own = await fetch(`${t.url}/v1/collections`, { headers: { cookie, 'x-dossier-project': other.projectId, 'x-dossier-env': 'live' } });
    expect(own.status).toBe(200);
  });

  it('renews the session past half its life, so a dashboard in use stays signed in, while an idle one lapses', async () => {
    const { cookie, csrf } = await signIn();
    const start = Date.now();
    const minutes = (m: number) => start + m * 60_000;
    const read = (c: string) => fetch(`${t.url}/v1/dashboard/session`, { headers: { cookie: c } });
    vi.useFakeTimers({ toFake: ['Date'], now: minutes(10) });
    try {
      const young = await read(cookie);
      expect(young.status).toBe(200);
      expect(young.headers.getSetCookie()).toEqual([]); // under half its life: nothing to renew
      vi.setSystemTime(minutes(40));
      const old = await read(cookie);
      expect(old.status).toBe(200);
      const set = old.headers.getSetCookie();
      expect(set.find((c) => c.startsWith('dossier_session='))).toMatch(/httponly/i);
      expect(set.find((c) => c.startsWith('dossier_csrf='))).toContain(`dossier_csrf=${csrf};`); // the page keeps its CSRF token
      const renewed = set.map((c) => c.split(';')[0]).join('; ');
      expect(renewed).not.toBe(cookie);
      vi.setSystemTime(minutes(75)); // past the first token's hour
      expect((await read(cookie)).status).toBe(401);
      const later = await read(renewed);
      expect(later.status).toBe(200);
      expect(((await later.json()) as { csrfToken: string }).csrfToken).toBe(csrf);
      const sandbox = {
        cookie: renewed,
        'x-dossier-project': t.projectId,
        'x-dossier-env': 'test',
        'x-dossier-csrf': csrf,
        'content-type': 'application/json',
      };
      const write = await fetch(`${t.url}/v1/collections`, {
        method: 'POST',
        headers: sandbox,
        body: JSON.stringify({ projectId: t.projectId, name: 'after renewal' }),
      });
      expect(write.status).toBe(201);
      vi.setSystemTime(minutes(101)); // idle since the renewal at 40: its hour is over
      expect((await read(renewed)).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it('signs out in this browser, and everywhere (the cookie stops working)', async () => {
    const out = await fetch(`${t.url}/v1/dashboard/session`, { method: 'DELETE' });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().find((c) => c.startsWith('dossier_session='))).toMatch(/expires=Thu, 01 Jan 1970/i);
    const { cookie, csrf } = await signIn();
    expect((await fetch(`${t.url}/v1/auth/logout-all`, { method: 'POST', headers: { cookie } })).status).toBe(403);
    const otherBrowser = await signIn();
    expect((await fetch(`${t.url}/v1/auth/logout-all`, { method: 'POST', headers: { cookie, 'x-dossier-csrf': csrf } })).status).toBe(204);
    expect((await fetch(`${t.url}/v1/dashboard/session`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${t.url}/v1/dashboard/session`, { headers: { cookie: otherBrowser.cookie } })).status).toBe(401);
  });
});
