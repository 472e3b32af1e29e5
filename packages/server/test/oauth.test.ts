import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';
import { authorizeParams, CALLBACK, call, codeFor, consent, pkcePair, postForm, registerClient, signIn, startProbe, token, tokensFor } from './oauth-client.ts';

/**
 * The OAuth 2.1 authorization server of the MCP endpoint (issue 18), through its HTTP face: metadata, registration,
 * the authorization request's checks, sign-in and consent by form, the token endpoint (PKCE S256, resource
 * indicators, rotation with reuse detection), revocation, connected clients, and access tokens resolved by the gate.
 */

let t: TestServer;
let probe: Awaited<ReturnType<typeof startProbe>>;
/** The authorization server's clock: tests move it forward instead of waiting. */
let clockMs = Date.now();
let memberEmail: string;
const MEMBER_PASSWORD = 'member long password';

beforeAll(async () => {
  t = await startTestServer({ oauth: { now: () => new Date(clockMs) } });
  probe = await startProbe(t);
  memberEmail = 'oauth-member@example.test';
  await t.server.dossier.auth.bootstrap(memberEmail, MEMBER_PASSWORD);
  const login = await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } });
  const added = await t.request('PUT', `/v1/orgs/${t.orgId}/members`, { auth: login.body.token, json: { email: memberEmail, role: 'member' } });
  expect(added.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await probe?.close();
  await t?.close();
});

const asProbe = (accessToken: string | null) => call(probe.url, accessToken ? { headers: { authorization: `Bearer ${accessToken}` } } : {});
const refresh = (clientId: string, refreshToken: string) => token(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

describe('metadata', () => {
  it('serves authorization server metadata (RFC 8414) naming every endpoint, S256 only and the two scopes', async () => {
    const res = await call(`${t.url}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: t.url,
      authorization_endpoint: `${t.url}/oauth/authorize`,
      token_endpoint: `${t.url}/oauth/token`,
      registration_endpoint: `${t.url}/oauth/register`,
      revocation_endpoint: `${t.url}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['svc:read', 'svc:full'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
  });

  it('serves protected resource metadata (RFC 9728) for /mcp at both well-known names', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await call(`${t.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ resource: `${t.url}/mcp`, authorization_servers: [t.url], scopes_supported: ['svc:read', 'svc:full'] });
    }
  });

  it('answers /mcp without a token with 401 and WWW-Authenticate naming the scopes and the resource metadata', async () => {
    const res = await call(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer scope="svc:read svc:full", resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
  });
});

describe('dynamic client registration', () => {
  it('registers a public client without a secret and echoes its metadata', async () => {
    const info = await registerClient(t);
    expect(info).toMatchObject({
      client_name: 'Test desktop app',
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      client_id: expect.any(String),
    });
    expect(info.client_secret).toBeUndefined();
    expect(info.client_id_issued_at).toBeGreaterThan(0);
  });

  it('gives a confidential client a secret, and its token requests without the secret are invalid_client (401)', async () => {
    const info = await registerClient(t, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(info.client_secret).toMatch(/^dso_cs_/);
    const refused = await token(t, { grant_type: 'refresh_token', refresh_token: 'x', client_id: info.client_id });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
    const basic = `Basic ${Buffer.from(`${info.client_id}:${info.client_secret}`).toString('base64')}`;
    const authenticated = await token(t, { grant_type: 'refresh_token', refresh_token: 'x' }, { authorization: basic });
    expect(authenticated.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses redirect URIs that are not https, loopback http or a private-use scheme, and registrations without any', async () => {
    const bad = async (metadata: Record<string, unknown>) => {
      const res = await call(`${t.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
      expect(res.status).toBe(400);
      return res.body;
    };
    expect(await bad({ redirect_uris: ['http://evil.example.com/cb'] })).toMatchObject({
      error: 'invalid_redirect_uri',
      error_description: expect.stringMatching(/loopback/),
    });
    expect(await bad({ redirect_uris: ['https://app.example.com/cb#frag'] })).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(await bad({ redirect_uris: ['javascript:alert(1)'] })).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(await bad({ client_name: 'no uris' })).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(/redirect_uris/),
    });
    expect(await bad({ redirect_uris: [CALLBACK], grant_types: ['client_credentials'] })).toMatchObject({ error: 'invalid_client_metadata' });
    expect((await registerClient(t, { redirect_uris: ['cursor://anysphere.cursor/oauth', 'https://app.example.com/cb'] })).redirect_uris).toHaveLength(2);
  });
});

describe('the authorization request', () => {
  let clientId: string;
  const { challenge } = pkcePair();
  beforeAll(async () => {
    clientId = (await registerClient(t)).client_id;
  });
  const authorize = (over: Record<string, string | undefined>) =>
    call(
      `${t.url}/oauth/authorize?${new URLSearchParams(Object.entries(authorizeParams(t, clientId, challenge, over)).filter((e): e is [string, string] => e[1] !== undefined))}`,
    );

  it('shows the sign-in page, with labelled fields, for a valid request', async () => {
    const res = await authorize({});
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.body).toContain('<label for="email">Email</label>');
    expect(res.body).toContain('Test desktop app');
  });

  it('shows an error page and never redirects for an unknown client or an unregistered redirect URI', async () => {
    const unknown = await authorize({ client_id: crypto.randomUUID() });
    expect(unknown.status).toBe(400);
    expect(unknown.location).toBeNull();
    expect(unknown.body).toContain('Unknown client_id');
    const elsewhere = await authorize({ redirect_uri: 'http://127.0.0.1:9/steal' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.location).toBeNull();
  });

  it('sends plain PKCE, a missing challenge, a wrong resource and an unknown scope back to the client with the OAuth error and state', async () => {
    const cases: [Record<string, string | undefined>, string, RegExp][] = [
      [{ code_challenge_method: 'plain' }, 'invalid_request', /S256/],
      [{ code_challenge_method: undefined }, 'invalid_request', /S256/],
      [{ code_challenge: undefined }, 'invalid_request', /code_challenge is required/],
      [{ resource: 'https://other.example.com/mcp' }, 'invalid_target', /mcp/],
      [{ scope: 'svc:admin' }, 'invalid_scope', /svc:admin/],
      [{ response_type: 'token' }, 'unsupported_response_type', /code/],
    ];
    for (const [over, error, description] of cases) {
      const res = await authorize(over);
      expect(res.status, JSON.stringify(over)).toBe(302);
      expect(`${res.location?.origin}${res.location?.pathname}`).toBe(CALLBACK);
      expect(res.location?.searchParams.get('error')).toBe(error);
      expect(res.location?.searchParams.get('error_description')).toMatch(description);
      expect(res.location?.searchParams.get('state')).toBe('state-123');
      expect(res.location?.searchParams.get('iss')).toBe(t.url);
    }
  });

  it('shows the sign-in page again with an alert after a wrong password', async () => {
    const res = await signIn(t, authorizeParams(t, clientId, challenge), { email: t.email, password: 'wrong password' });
    expect(res.status).toBe(401);
    expect(res.body).toContain('role="alert"');
    expect(res.body).toContain('Invalid email or password');
  });

  it('sends a denial back as access_denied', async () => {
    const res = await consent(t, authorizeParams(t, clientId, challenge), { decision: 'deny' });
    expect(res.status).toBe(302);
    expect(res.location?.searchParams.get('error')).toBe('access_denied');
    expect(res.location?.searchParams.get('state')).toBe('state-123');
  });

  it('lets a member grant svc:read but not svc:full, which needs the admin role', async () => {
    const params = authorizeParams(t, clientId, challenge, { scope: 'svc:full' });
    const full = await consent(t, params, { email: memberEmail, password: MEMBER_PASSWORD, scope: 'svc:full' });
    expect(full.status).toBe(403);
    expect(full.body).toContain('svc:full needs the admin role');
    const read = await consent(t, params, { email: memberEmail, password: MEMBER_PASSWORD, scope: 'svc:read' });
    expect(read.status).toBe(303);
    expect(read.location?.searchParams.get('code')).toMatch(/^dso_ac_/);
  });

  it('refuses a consent for a project the account does not belong to, and a forged page session', async () => {
    const params = authorizeParams(t, clientId, challenge);
    const other = await consent(t, params, { sandbox: `${crypto.randomUUID()}:live` });
    expect(other.status).toBe(400);
    expect(other.body).toContain('Choose one of your projects');
    const forged = await postForm(`${t.url}/oauth/authorize/consent`, {
      ...params,
      session: 'forged',
      sandbox: `${t.projectId}:live`,
      granted_scope: 'svc:read',
      decision: 'allow',
    });
    expect(forged.status).toBe(401);
    expect(forged.body).toContain('sign in again');
  });
});

describe('tokens', () => {
  it('exchanges a code with its verifier for a Bearer token the gate resolves to the consented project, sandbox and scope', async () => {
    const { client, tokens } = await tokensFor(t, 'svc:full', `${t.projectId}:test`);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'svc:full' });
    expect(tokens.access_token).toMatch(/^dso_at_/);
    expect(tokens.refresh_token).toMatch(/^dso_rt_/);
    const res = await asProbe(tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: 'oauth',
      accountId: expect.any(String),
      projectId: t.projectId,
      env: 'test',
      scopes: ['svc:full'],
      clientId: client.client_id,
    });
  });

  it('rotates refresh tokens; presenting a rotated one revokes every token of the connection', async () => {
    const { client, tokens } = await tokensFor(t);
    const first = await refresh(client.client_id, tokens.refresh_token);
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await asProbe(first.body.access_token)).status).toBe(200);
    const second = await refresh(client.client_id, first.body.refresh_token);
    expect(second.status).toBe(200);
    const reused = await refresh(client.client_id, tokens.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/already used.*revoked/) });
    expect((await asProbe(second.body.access_token)).status).toBe(401);
    expect((await refresh(client.client_id, second.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('spends a code on a wrong verifier, so the right one afterwards is refused', async () => {
    const { client, verifier, code } = await codeFor(t);
    const wrong = await token(t, { grant_type: 'authorization_code', code, code_verifier: pkcePair().verifier, client_id: client.client_id });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/code_verifier does not match/) });
    const right = await token(t, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id });
    expect(right.body.error).toBe('invalid_grant');
  });

  it('refuses a reused code and revokes the tokens its first exchange issued', async () => {
    const { client, verifier, code } = await codeFor(t);
    const fields = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id };
    const first = await token(t, fields);
    expect(first.status).toBe(200);
    const second = await token(t, fields);
    expect(second.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/already used/) });
    expect((await asProbe(first.body.access_token)).status).toBe(401);
  });

  it('refuses a code for another resource, another client, or without a verifier', async () => {
    const { client, verifier, code } = await codeFor(t);
    const base = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id };
    expect((await token(t, { ...base, code_verifier: undefined })).body).toMatchObject({ error: 'invalid_request' });
    const other = await registerClient(t);
    expect((await token(t, { ...base, client_id: other.client_id })).body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/another client/),
    });
    const again = await codeFor(t);
    const wrongResource = await token(t, {
      grant_type: 'authorization_code',
      code: again.code,
      code_verifier: again.verifier,
      client_id: again.client.client_id,
      resource: 'https://other.example.com/mcp',
    });
    expect(wrongResource.body).toMatchObject({ error: 'invalid_target' });
    expect((await token(t, { grant_type: 'password', client_id: client.client_id })).body).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await token(t, { grant_type: 'authorization_code', code: 'x', code_verifier: verifier })).status).toBe(401);
  });

  it('refuses an expired access token with invalid_token, and an expired code', async () => {
    const { tokens } = await tokensFor(t);
    const late = await codeFor(t);
    clockMs += 16 * 60_000;
    try {
      const res = await asProbe(tokens.access_token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(
        /^Bearer error="invalid_token", error_description="Invalid or expired access token", scope="svc:read svc:full", resource_metadata="/,
      );
      const code = await token(t, { grant_type: 'authorization_code', code: late.code, code_verifier: late.verifier, client_id: late.client.client_id });
      expect(code.body).toEqual({ error: 'invalid_grant', error_description: 'The code has expired' });
    } finally {
      clockMs -= 16 * 60_000;
    }
  });

  it('revokes an access token alone, a refresh token with its whole connection, and answers 200 for unknown tokens', async () => {
    const { client, tokens } = await tokensFor(t);
    const renewed = await refresh(client.client_id, tokens.refresh_token);
    const revoke = (tokenValue: string) => postForm(`${t.url}/oauth/revoke`, { token: tokenValue, client_id: client.client_id });
    expect((await revoke(tokens.access_token)).status).toBe(200);
    expect((await asProbe(tokens.access_token)).status).toBe(401);
    expect((await asProbe(renewed.body.access_token)).status).toBe(200);
    expect((await revoke(renewed.body.refresh_token)).status).toBe(200);
    expect((await asProbe(renewed.body.access_token)).status).toBe(401);
    expect((await revoke('dso_rt_unknown')).status).toBe(200);
  });

  it('takes access tokens only where a route accepts them: a data-plane route answers 401', async () => {
    const { tokens } = await tokensFor(t);
    const res = await t.request('GET', '/v1/collections', { auth: tokens.access_token });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/accepted at .*\/mcp only/);
    expect((await asProbe(t.liveKey)).body.kind).toBe('project_key'); // /mcp takes project keys too
  });

  it('stores no token, code or secret in plaintext and logs none', async () => {
    const { client, verifier, code } = await codeFor(t);
    const issued = await token(t, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id });
    const secrets = [code, issued.body.access_token, issued.body.refresh_token];
    const files = readdirSync(t.dataDir, { recursive: true })
      .map(String)
      .filter((f) => /\.(db|sqlite|db-wal)$/.test(f) || f.endsWith('-wal'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const path = join(t.dataDir, file);
      if (!statSync(path).isFile()) continue;
      const bytes = readFileSync(path).toString('latin1');
      for (const secret of secrets) expect(bytes.includes(secret), `${secret.slice(0, 7)}… in ${file}`).toBe(false);
    }
    const logged = JSON.stringify(t.logged);
    for (const secret of secrets) expect(logged.includes(secret)).toBe(false);
  });
});

describe('connected clients', () => {
  let jwt: string;
  beforeAll(async () => {
    jwt = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  });
  const path = () => `/v1/orgs/${t.orgId}/projects/${t.projectId}/mcp-clients`;

  it('lists a connection for admins with its client, scope and account, and disconnecting it ends its tokens', async () => {
    const { client, tokens } = await tokensFor(t, 'svc:read');
    const list = await t.request('GET', path(), { auth: jwt });
    expect(list.status).toBe(200);
    const connection = list.body.find((c: { clientId: string }) => c.clientId === client.client_id);
    expect(connection).toMatchObject({ clientName: 'Test desktop app', env: 'live', scopes: ['svc:read'], account: { email: t.email } });
    expect(JSON.stringify(list.body)).not.toContain('dso_');
    expect((await t.request('DELETE', `${path()}/${connection.id}`, { auth: jwt })).status).toBe(204);
    expect((await asProbe(tokens.access_token)).status).toBe(401);
    expect((await refresh(client.client_id, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await t.request('GET', path(), { auth: jwt })).body.map((c: { id: string }) => c.id)).not.toContain(connection.id);
    expect((await t.request('DELETE', `${path()}/${connection.id}`, { auth: jwt })).status).toBe(404);
  });

  it('refuses members (403) and answers 404 for a connection of another project', async () => {
    const member = (await t.request('POST', '/auth/login', { auth: null, json: { email: memberEmail, password: MEMBER_PASSWORD } })).body.token;
    expect((await t.request('GET', path(), { auth: member })).status).toBe(403);
    const otherProject = await t.request('POST', `/v1/orgs/${t.orgId}/projects`, { auth: jwt, json: { name: 'other' } });
    const { tokens } = await tokensFor(t, 'svc:read');
    const connection = (await t.request('GET', path(), { auth: jwt })).body[0];
    const elsewhere = `/v1/orgs/${t.orgId}/projects/${otherProject.body.id}/mcp-clients/${connection.id}`;
    expect((await t.request('DELETE', elsewhere, { auth: jwt })).status).toBe(404);
    expect((await asProbe(tokens.access_token)).status).toBe(200);
  });

  it("stops a member's token when the member leaves the org", async () => {
    const login = await t.request('POST', '/auth/login', { auth: null, json: { email: 'leaver@example.test', password: 'leaver long password' } });
    expect(login.status).toBe(401);
    await t.server.dossier.auth.bootstrap('leaver@example.test', 'leaver long password');
    const added = await t.request('PUT', `/v1/orgs/${t.orgId}/members`, { auth: jwt, json: { email: 'leaver@example.test', role: 'member' } });
    const client = await registerClient(t);
    const { verifier, challenge } = pkcePair();
    const answer = await consent(t, authorizeParams(t, client.client_id, challenge), { email: 'leaver@example.test', password: 'leaver long password' });
    const issued = await token(t, {
      grant_type: 'authorization_code',
      code: answer.location?.searchParams.get('code') ?? '',
      code_verifier: verifier,
      client_id: client.client_id,
    });
    expect((await asProbe(issued.body.access_token)).status).toBe(200);
    expect((await t.request('DELETE', `/v1/orgs/${t.orgId}/members/${added.body.accountId ?? added.body.id}`, { auth: jwt })).status).toBe(204);
    expect((await asProbe(issued.body.access_token)).status).toBe(401);
  });
});
