/**
 * A small OAuth client of the test suite, speaking to a real server: registration, PKCE, the sign-in and consent
 * forms (submitted as a browser would, without following redirects), the token and revocation endpoints, and a
 * probe app that resolves an access token with the router's own gate (http/auth.ts) as the MCP endpoint will.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { s256 } from '@dossier/core/internal';
import Koa from 'koa';
import { authenticate } from '../src/http/auth.ts';
import { errorMiddleware } from '../src/http/errors.ts';
import { oauthUrls } from '../src/http/oauth-urls.ts';
import type { Json, TestServer } from './helpers.ts';

export const CALLBACK = 'http://127.0.0.1:45111/callback';

/** A fresh PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: s256(verifier) };
}

/** A response with its JSON or text body, never following a redirect. */
export async function call(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: Json; location: URL | null }> {
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(15_000), ...init });
  const text = await res.text();
  const body = /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
  const location = res.headers.get('location');
  return { status: res.status, headers: res.headers, body, location: location ? new URL(location) : null };
}

/** POST an `application/x-www-form-urlencoded` form. */
export const postForm = (url: string, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
  call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined)).toString(),
  });

/** Register a public client (RFC 7591) with the test callback, or with `metadata` instead. */
export async function registerClient(t: TestServer, metadata: Record<string, unknown> = {}): Promise<Json> {
  const res = await call(`${t.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test desktop app',
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Parameters of an authorization request for a client, with PKCE S256 and the MCP resource. */
export function authorizeParams(
  t: TestServer,
  clientId: string,
  challenge: string,
  over: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'svc:read',
    state: 'state-123',
    resource: `${t.url}/mcp`,
    ...over,
  };
}

/** The value of a hidden field of a page. */
export function hiddenValue(page: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(page);
  if (!match) throw new Error(`no hidden field ${name}`);
  return match[1] as string;
}

/** Sign in on the consent flow; returns the consent page and its page session. */
export async function signIn(t: TestServer, params: Record<string, string | undefined>, credentials = { email: t.email, password: t.password }) {
  const res = await postForm(`${t.url}/oauth/authorize`, { ...params, ...credentials });
  return { ...res, session: res.status === 200 ? hiddenValue(res.body, 'session') : null };
}

/** Sign in and consent: the answer of the consent form (a 303 to the callback with the code, when allowed). */
export async function consent(
  t: TestServer,
  params: Record<string, string | undefined>,
  choice: { sandbox?: string; scope?: string; decision?: string; email?: string; password?: string } = {},
) {
  const { session } = await signIn(t, params, { email: choice.email ?? t.email, password: choice.password ?? t.password });
  if (!session) throw new Error('sign-in failed');
  return postForm(`${t.url}/oauth/authorize/consent`, {
    ...params,
    session,
    sandbox: choice.sandbox ?? `${t.projectId}:live`,
    granted_scope: choice.scope ?? params.scope ?? 'svc:read',
    decision: choice.decision ?? 'allow',
  });
}

/** The whole flow by forms: a code for a new client, with its verifier. */
export async function codeFor(t: TestServer, scope = 'svc:read', sandbox?: string) {
  const client = await registerClient(t);
  const { verifier, challenge } = pkcePair();
  const answer = await consent(t, authorizeParams(t, client.client_id, challenge, { scope }), { scope, sandbox });
  const code = answer.location?.searchParams.get('code');
  if (answer.status !== 303 || !code) throw new Error(`consent failed: ${answer.status} ${answer.body}`);
  return { client, verifier, code };
}

/** POST /oauth/token. */
export const token = (t: TestServer, fields: Record<string, string | undefined>, headers?: Record<string, string>) =>
  postForm(`${t.url}/oauth/token`, fields, headers);

/** Exchange a code for tokens; expects 200. */
export async function tokensFor(t: TestServer, scope = 'svc:read', sandbox?: string) {
  const { client, verifier, code } = await codeFor(t, scope, sandbox);
  const res = await token(t, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: client.client_id,
    redirect_uri: CALLBACK,
    resource: `${t.url}/mcp`,
  });
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { client, tokens: res.body as { access_token: string; refresh_token: string; expires_in: number; scope: string; token_type: string } };
}

/**
 * A probe of access-token resolution: an app whose one route takes OAuth tokens through the router's gate, with the
 * server's own core and URLs. It answers the principal, or the gate's refusal with its headers.
 */
export async function startProbe(t: TestServer): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use(errorMiddleware({ info() {}, warn() {}, error() {} }));
  app.use(async (ctx) => {
    ctx.body = await authenticate(t.server.dossier, ctx, 'key-or-oauth', { urls: oauthUrls(t.url) });
  });
  const server: Server = createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
