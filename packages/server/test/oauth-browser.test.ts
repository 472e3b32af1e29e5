import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';
import { call, postForm, startProbe } from './oauth-client.ts';

/**
 * The whole OAuth flow as a desktop MCP client runs it (issue 18): the MCP SDK's client discovers the server from
 * the MCP endpoint's URL, registers, sends the user to the sign-in page, and a real browser (Debian's Chromium,
 * driven by Playwright without a browser download) signs in and consents by keyboard; the SDK then exchanges the code,
 * refreshes (rotation) and the client revokes. Both pages are checked with axe-core for accessibility.
 */

/** Debian's Chromium (`apt-get install chromium`); the tests say so instead of failing elsewhere when it is missing. */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WAIT_MS = 15_000;

/** The callback a desktop client listens on: resolves with the query the browser brought back. */
async function startCallback(): Promise<{ url: string; next: () => Promise<URLSearchParams>; close: () => Promise<void> }> {
  let deliver: (query: URLSearchParams) => void = () => {};
  const server: Server = createServer((req, res) => {
    deliver(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Done</title><p>You can close this window.</p>');
  }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () =>
      new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the browser never reached the callback')), WAIT_MS);
        deliver = (query) => {
          clearTimeout(timer);
          resolve(query);
        };
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An OAuthClientProvider keeping everything in memory, as a desktop client keeps it in its settings. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Browser test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A Streamable HTTP transport to /mcp that authorizes through the provider, as a desktop client's does. */
const transportOf = (serverUrl: string, provider: OAuthClientProvider) => new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });

/** Accessibility violations axe-core finds on the page (WCAG 2.1 A and AA rules), as `rule: target` lines. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  // Evaluated in the page (as text: this suite compiles without the DOM library).
  return page.evaluate<string[]>(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

/** The id (or name) of the focused element. */
const focused = (page: Page) =>
  page.evaluate<string>("document.activeElement?.id || document.activeElement?.getAttribute('name') || document.activeElement?.tagName || ''");

describe.skipIf(!CHROMIUM)('the OAuth flow in a browser, driven by the MCP SDK client', () => {
  let t: TestServer;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallback>>;
  let probe: Awaited<ReturnType<typeof startProbe>>;

  beforeAll(async () => {
    t = await startTestServer();
    probe = await startProbe(t);
    callback = await startCallback();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await probe?.close();
    await t?.close();
  });

  it('connects over /mcp: the 401 starts the flow, sign-in and consent by keyboard, tool calls in scope, refresh with rotation, reuse revokes', async () => {
    const provider = new MemoryProvider(callback.url);
    const serverUrl = `${t.url}/mcp`;
    // The first connection has no token: /mcp answers 401 with its challenge and the SDK starts the authorization flow.
    await expect(new Client({ name: 'browser-test', version: '1' }).connect(transportOf(serverUrl, provider))).rejects.toThrow(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(serverUrl);

    // The pages' CSP forbids scripts; the test's own axe-core script is let in by bypassing it in this context only.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(authorizationUrl.toString());
    expect(await page.title()).toBe('Sign in · Dossier');
    expect(await axeViolations(page)).toEqual([]);
    // Keyboard only: the e-mail field has focus, Tab goes to the password, Enter submits.
    expect(await focused(page)).toBe('email');
    await page.keyboard.type(t.email);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('password');
    await page.keyboard.type(t.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/oauth\/authorize$/, { timeout: WAIT_MS });
    expect(await page.title()).toBe('Allow access · Dossier');
    expect(await axeViolations(page)).toEqual([]);
    // The project picker has focus; the test sandbox is the option after the live one.
    expect(await focused(page)).toBe('sandbox');
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('#sandbox').inputValue()).toBe(`${t.projectId}:test`);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('scope-svc-full'); // the SDK asked for both scopes: full access is preselected
    await page.keyboard.press('ArrowUp');
    expect(await page.locator('#scope-svc-read').isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Allow');
    const returned = callback.next();
    await page.keyboard.press('Enter');
    const query = await returned;
    expect(query.get('iss')).toBe(t.url);
    await context.close();

    expect(await auth(provider, { serverUrl, authorizationCode: query.get('code') ?? '' })).toBe('AUTHORIZED');
    const first = provider.saved as OAuthTokens;
    expect(first).toMatchObject({ token_type: 'Bearer', scope: 'svc:read', expires_in: 900 });
    const principal = await call(probe.url, { headers: { authorization: `Bearer ${first.access_token}` } });
    expect(principal.body).toMatchObject({ kind: 'oauth', projectId: t.projectId, env: 'test', scopes: ['svc:read'] });

    // Connected: a read tool answers; a tool that needs svc:full is refused (403 insufficient_scope).
    const client = new Client({ name: 'browser-test', version: '1' });
    await client.connect(transportOf(serverUrl, provider));
    const listed = (await client.callTool({ name: 'svc_list_collections', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toBeDefined();
    await expect(client.callTool({ name: 'svc_create_collection', arguments: { name: 'not allowed' } })).rejects.toThrow(/403|insufficient_scope/);
    await client.close();

    // With tokens saved, the SDK refreshes: the refresh token rotates, and a spent one is refused from now on.
    const before = provider.saved as OAuthTokens;
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    const latest = provider.saved as OAuthTokens;
    expect(latest.refresh_token).not.toBe(before.refresh_token);
    const clientId = (provider.client as { client_id: string }).client_id;
    const reused = await postForm(`${t.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '', client_id: clientId });
    expect(reused.body.error).toBe('invalid_grant');
    // The reuse revoked the whole connection: /mcp refuses the newest access token with invalid_token.
    const refused = await call(serverUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${latest.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", .*resource_metadata="/);
  }, 60_000);

  it('lets an admin disconnect a client on the connected clients page by keyboard', async () => {
    const provider = new MemoryProvider(callback.url);
    const serverUrl = `${t.url}/mcp`;
    await auth(provider, { serverUrl });
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto((provider.authorizationUrl as URL).toString());
    await page.fill('#email', t.email);
    await page.fill('#password', t.password);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/oauth\/authorize$/, { timeout: WAIT_MS });
    const returned = callback.next();
    await page.click('button[value=allow]');
    await auth(provider, { serverUrl, authorizationCode: (await returned).get('code') ?? '' });
    const accessToken = (provider.saved as OAuthTokens).access_token;
    expect((await call(probe.url, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(200);

    await page.goto(`${t.url}/oauth/connected-clients`);
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.type(t.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(t.password);
    await page.keyboard.press('Enter');
    await page.getByText('Signed in as').waitFor({ timeout: WAIT_MS });
    expect(await axeViolations(page)).toEqual([]);
    const disconnect = page.getByRole('button', { name: /Disconnect Browser test client/ });
    await expect.poll(() => disconnect.count(), { timeout: WAIT_MS }).toBeGreaterThan(0);
    await disconnect.first().focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role=status]', { timeout: WAIT_MS });
    expect(await page.locator('[role=status]').textContent()).toMatch(/Disconnected/);
    expect((await call(probe.url, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(401);
    await context.close();
  }, 60_000);
});
