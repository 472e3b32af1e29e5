import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/app.ts';
import { filesUnder, startTestServer, type TestServer } from './helpers.ts';
import { tokensFor } from './oauth-client.ts';

/**
 * The secret canary (issue 9): recognisable secrets — the admin password, a project API key, an org key, a
 * provider key, a webhook signing secret and an MCP client's OAuth tokens — are planted, every route is exercised with them, and none may show
 * up in a log line, a response, an event stream or a file of the data directory. The two places a secret is shown
 * on purpose are excluded and checked on their own: the response that creates it (once), and the first-start
 * credentials file (mode 0600).
 */

const ADMIN_PASSWORD = 'CANARY-admin-password-7d1f0c';
const PROVIDER_KEY = 'sk-ant-api03-CANARYproviderKEY5a9e2b77';

let t: TestServer;
const canaries: Record<string, string> = {};
/** Everything the server said to clients (bodies, headers, stream starts), besides the creating responses. */
const seen: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ config: { adminPassword: ADMIN_PASSWORD, webhooksAllowHttpLoopback: true } });
  const login = await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: ADMIN_PASSWORD } });
  const token = login.body.token;
  const base = `/v1/orgs/${t.orgId}/projects/${t.projectId}`;
  canaries.adminPassword = ADMIN_PASSWORD;
  canaries.providerKey = PROVIDER_KEY;
  canaries.liveKey = t.liveKey;
  canaries.projectKey = (await t.request('POST', `${base}/api-keys`, { auth: token, json: { env: 'live', name: 'canary' } })).body.key;
  canaries.orgKey = (await t.request('POST', `/v1/orgs/${t.orgId}/api-keys`, { auth: token, json: {} })).body.key;
  canaries.signingSecret = (await t.request('POST', `${base}/webhooks`, { auth: token, json: { url: 'https://hooks.invalid/x' } })).body.secret;
  expect(
    (await t.request('POST', `/v1/projects/${t.projectId}/provider-keys`, { json: { provider: 'provider_a', key: PROVIDER_KEY, name: 'canary' } })).status,
  ).toBe(201);
  // Issue 18: an MCP client's OAuth tokens (the token response is their one creating response).
  const { tokens } = await tokensFor(t, 'svc:full');
  canaries.oauthAccessToken = tokens.access_token;
  canaries.oauthRefreshToken = tokens.refresh_token;
  const collection = await t.createCollection({ name: 'canary' });
  await t.ingest(collection.id, 'c.md', '# Canary\n\nplain words\n');
  await exerciseEveryRoute(token, collection.id);
});
afterAll(async () => {
  await t?.close();
});

/** Call every route with each secret as the credential and with the secret in the body; keep what came back. */
async function exerciseEveryRoute(token: string, collectionId: string): Promise<void> {
  const routes = allRoutes({ dossier: t.server.dossier, config: t.config, publicUrl: () => t.url, limits: t.server.limits });
  const ids: Record<string, string> = { orgId: t.orgId, projectId: t.projectId, id: collectionId };
  for (const route of routes) {
    if (route.method === 'delete' || route.path.endsWith('/logout-all') || route.path.endsWith('/rotate')) continue; // keep the planted secrets alive
    const path = route.path.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? crypto.randomUUID());
    for (const credential of [canaries.liveKey!, canaries.orgKey!, token, `${canaries.projectKey}x`, canaries.oauthAccessToken!]) {
      const body = route.method === 'get' ? undefined : JSON.stringify({ password: ADMIN_PASSWORD, key: PROVIDER_KEY, q: canaries.liveKey });
      const res = await fetch(`${t.url}${path}`, {
        method: route.method.toUpperCase(),
        body,
        signal: AbortSignal.timeout(10_000),
        headers: { authorization: `Bearer ${credential}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      });
      seen.push(JSON.stringify([...res.headers]), await firstBytes(res));
    }
  }
}

/** A response's text, or the first chunk of a stream that stays open. */
async function firstBytes(res: Response): Promise<string> {
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res.text();
  const reader = res.body!.getReader();
  const first = await Promise.race([reader.read(), new Promise<{ value?: Uint8Array }>((resolve) => setTimeout(() => resolve({}), 500))]);
  await reader.cancel();
  return first.value ? new TextDecoder().decode(first.value) : '';
}

describe('secret canary', () => {
  it('finds no planted secret in any response, stream or header', () => {
    for (const [name, secret] of Object.entries(canaries)) {
      expect(seen.filter((text) => text.includes(secret)).length, `${name} in a response`).toBe(0);
    }
  });

  it('finds no planted secret in any log line', () => {
    const lines = t.logged.map((line) => JSON.stringify(line));
    expect(lines.length).toBeGreaterThan(100);
    for (const [name, secret] of Object.entries(canaries)) {
      expect(
        lines.filter((line) => line.includes(secret)),
        `${name} in the log`,
      ).toEqual([]);
    }
  });

  it('finds no planted secret in any file of the data directory but the 0600 first-start credentials', () => {
    const credentials = 'bootstrap-credentials.txt';
    expect(statSync(join(t.dataDir, credentials)).mode & 0o777).toBe(0o600);
    const files = filesUnder(t.dataDir).filter((file) => file !== credentials);
    expect(files.some((file) => file.endsWith('dossier.db'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(join(t.dataDir, file));
      for (const [name, secret] of Object.entries(canaries)) expect(bytes.includes(secret), `${name} in ${file}`).toBe(false);
    }
  });
});
