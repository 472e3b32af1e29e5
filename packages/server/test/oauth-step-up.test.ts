/**
 * OAuth step-up (issue 36): a client granted svc:read that calls a svc:full tool must end up asking the person again,
 * not refresh into tokens that keep the old scope. The MCP SDK's own client drives it: its auth() and its Streamable
 * HTTP transport's scope-challenge handling, against a real server; consent is given by the sign-in and consent forms.
 */
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';
import { CALLBACK, call, consent, token, tokensFor } from './oauth-client.ts';

/** A desktop client's OAuthClientProvider, in memory; `invalidateCredentials` is the SDK's hook to drop what failed. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  readonly redirectUrl = CALLBACK;
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Step-up test client',
      redirect_uris: [CALLBACK],
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
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}

/** The person signs in and consents to `scope` on the page the SDK sent them to; the code the callback receives. */
async function consentTo(t: TestServer, authorizationUrl: URL, scope: string): Promise<string> {
  const params = Object.fromEntries(authorizationUrl.searchParams);
  const answer = await consent(t, params, { scope });
  const code = answer.location?.searchParams.get('code');
  if (answer.status !== 303 || !code) throw new Error(`consent failed: ${answer.status} ${answer.body}`);
  return code;
}

const connect = async (serverUrl: string, provider: OAuthClientProvider): Promise<Client> => {
  const client = new Client({ name: 'step-up-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
  return client;
};

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('OAuth step-up from svc:read to svc:full', () => {
  it('refuses a refresh that asks for more than was granted with invalid_scope, and keeps the refresh token usable', async () => {
    const { client, tokens } = await tokensFor(t, 'svc:read');
    const broader = await token(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, scope: 'svc:full' });
    expect(broader.status).toBe(400);
    expect(broader.body).toMatchObject({
      error: 'invalid_scope',
      error_description: expect.stringContaining('svc:read only; svc:full needs a new authorization'),
    });
    const same = await token(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, scope: 'svc:read' });
    expect(same.status).toBe(200);
    expect(same.body.scope).toBe('svc:read');
  });

  it('takes the MCP SDK client from a read grant, through a refused write call, to a second consent for svc:full', async () => {
    const serverUrl = `${t.url}/mcp`;
    const provider = new MemoryProvider();

    // No token: the 401 challenge names the scopes, and the SDK sends the person to sign in.
    const bare = await call(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(bare.headers.get('www-authenticate')).toContain('scope="svc:read svc:full"');
    await expect(connect(serverUrl, provider)).rejects.toThrow(UnauthorizedError);
    const first = provider.authorizationUrl as URL;
    expect(first.searchParams.get('scope')).toBe('svc:read svc:full');

    // The person grants read access only.
    expect(await auth(provider, { serverUrl, authorizationCode: await consentTo(t, first, 'svc:read') })).toBe('AUTHORIZED');
    expect(provider.saved?.scope).toBe('svc:read');
    const reader = await connect(serverUrl, provider);
    const listed = (await reader.callTool({ name: 'svc_list_collections', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeFalsy();

    // A write tool: 403 insufficient_scope with scope="svc:full"; the SDK's transport calls auth() with that scope,
    // its refresh is refused (invalid_grant, the step-up), and it starts a new authorization asking for svc:full.
    provider.authorizationUrl = null;
    await expect(reader.callTool({ name: 'svc_create_collection', arguments: { name: 'written after step-up' } })).rejects.toThrow(UnauthorizedError);
    await reader.close().catch(() => {});
    const second = provider.authorizationUrl as URL | null;
    expect(second, 'the SDK did not start a second authorization').not.toBeNull();
    expect(second!.searchParams.get('scope')).toBe('svc:full');
    expect(provider.saved).toBeUndefined();

    // The second consent, for svc:full: the write call now goes through.
    expect(await auth(provider, { serverUrl, authorizationCode: await consentTo(t, second!, 'svc:full') })).toBe('AUTHORIZED');
    expect(provider.saved?.scope).toBe('svc:full');
    const writer = await connect(serverUrl, provider);
    const created = (await writer.callTool({ name: 'svc_create_collection', arguments: { name: 'written after step-up' } })) as CallToolResult;
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    await writer.close();
    const names = ((await t.request('GET', '/v1/collections')).body as { name: string }[]).map((c) => c.name);
    expect(names).toContain('written after step-up');
  }, 60_000);
});
