import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, sentKey, startWireServer, type WireServer } from '../../adapters/test/providers/wire-server.ts';
import { expectError, filesUnder, startTestServer, type TestServer } from './helpers.ts';
import { dossierContext } from '@dossier/core/testing';

const ANTHROPIC_KEY = 'sk-ant-api03-PLAINTEXTanthropicKEY0123456789';
const OPENAI_KEY = 'sk-proj-PLAINTEXTopenaiKEY9876543210';
const MANAGED_KEY = 'sk-ant-managed-operatorKEY00000000';

let t: TestServer;
let anthropic: WireServer;
let other: { projectId: string; liveKey: string };

beforeAll(async () => {
  anthropic = await startWireServer();
  t = await startTestServer({ config: { anthropicApiKey: MANAGED_KEY, anthropicBaseUrl: anthropic.url } });
  const b = await t.server.dossier.auth.bootstrap('other@example.test', 'another long password');
  if (!b) throw new Error('a new account must bootstrap a second project');
  other = { projectId: b.projectId, liveKey: b.liveKey };
});
afterAll(async () => {
  await t.close();
  await anthropic.close();
});

const path = (projectId = t.projectId) => `/v1/projects/${projectId}/provider-keys`;

describe('provider keys over HTTP', () => {
  it('creates a key for provider_a and returns the ProviderKey with only a preview of the key', async () => {
    const res = await t.request('POST', path(), { json: { provider: 'provider_a', key: ANTHROPIC_KEY, name: 'Team Anthropic' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'keyPreview', 'name', 'provider']);
    expect(res.body).toMatchObject({ provider: 'provider_a', name: 'Team Anthropic', keyPreview: 'sk-a…6789' });
    expect(JSON.stringify(res.body)).not.toContain(ANTHROPIC_KEY);
  });

  it("accepts the provider's own name as the other spelling and answers with the spec's value", async () => {
    const res = await t.request('POST', path(), { json: { provider: 'openai', key: OPENAI_KEY, name: 'Team OpenAI' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ provider: 'provider_b', keyPreview: 'sk-p…3210' });
  });

  it("lists the sandbox's keys newest first, previews only; the test key sees and touches only the test sandbox's (issue 9)", async () => {
    const live = await t.request('GET', path());
    expect(live.status).toBe(200);
    expect(live.body.map((k: { provider: string }) => k.provider)).toEqual(['provider_b', 'provider_a']);
    const text = JSON.stringify(live.body);
    expect(text).not.toContain(ANTHROPIC_KEY);
    expect(text).not.toContain(OPENAI_KEY);
    expect((await t.request('GET', path(), { auth: t.testKey })).body).toEqual([]);
    expectError(await t.request('DELETE', `${path()}/${live.body[0].id}`, { auth: t.testKey }), 404);
    const sandboxed = await t.request('POST', path(), { auth: t.testKey, json: { provider: 'provider_a', key: 'sk-ant-sandbox-0123456789', name: 'Sandbox' } });
    expect(sandboxed.status).toBe(201);
    expect((await t.request('GET', path(), { auth: t.testKey })).body.map((k: { id: string }) => k.id)).toEqual([sandboxed.body.id]);
    expect((await t.request('GET', path())).body).toEqual(live.body);
    expect((await t.request('DELETE', `${path()}/${sandboxed.body.id}`, { auth: t.testKey })).status).toBe(204);
  });

  it('never writes a plaintext key to any file of the data directory (database, WAL, logs)', async () => {
    const files = filesUnder(t.dataDir);
    expect(files.some((f) => f.endsWith('dossier.db'))).toBe(true);
    for (const f of files) {
      const bytes = readFileSync(join(t.dataDir, f));
      expect(bytes.includes(ANTHROPIC_KEY), f).toBe(false);
      expect(bytes.includes(OPENAI_KEY), f).toBe(false);
    }
  });

  it("uses the project's own key for its model calls instead of the operator's managed key", async () => {
    const access = await t.server.dossier.auth.authenticateKey(t.liveKey);
    const resolved = await dossierContext(t.server.dossier).models.resolve(access, null, 'fast');
    expect(resolved).toMatchObject({ providerName: 'anthropic', keySource: 'project', model: 'claude-haiku-4-5' });
    anthropic.reply(
      json(200, {
        id: 'm',
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    );
    await resolved.provider.chat({ model: resolved.model, messages: [{ role: 'user', content: 'hi' }] });
    expect(sentKey(anthropic.requests.at(-1))).toBe(ANTHROPIC_KEY);
    const otherAccess = await t.server.dossier.auth.authenticateKey(other.liveKey);
    expect(await dossierContext(t.server.dossier).models.resolve(otherAccess, null, 'fast')).toMatchObject({ keySource: 'managed' });
  });

  it("answers 404 for another project's keys, whatever the method", async () => {
    const mine = (await t.request('GET', path())).body[0];
    expectError(await t.request('GET', path(other.projectId)), 404);
    expectError(await t.request('POST', path(other.projectId), { json: { provider: 'provider_a', key: ANTHROPIC_KEY, name: 'x' } }), 404);
    expectError(await t.request('DELETE', `${path(other.projectId)}/${mine.id}`), 404);
    expectError(await t.request('DELETE', `${path(other.projectId)}/${mine.id}`, { auth: other.liveKey }), 404);
    expectError(await t.request('DELETE', `${path()}/${mine.id}`, { auth: other.liveKey }), 404);
    expect((await t.request('GET', path(other.projectId), { auth: other.liveKey })).body).toEqual([]);
  });

  it('rejects a bad provider, a missing key or name, and a request without an API key', async () => {
    expectError(await t.request('POST', path(), { json: { provider: 'provider_c', key: ANTHROPIC_KEY, name: 'x' } }), 400, /provider/);
    expectError(await t.request('POST', path(), { json: { provider: 'provider_a', name: 'x' } }), 400, /key/);
    expectError(await t.request('POST', path(), { json: { provider: 'provider_a', key: ANTHROPIC_KEY } }), 400, /name/);
    expectError(await t.request('GET', path(), { auth: null }), 401);
  });

  it('deletes a key with 204, after which it is gone and a second delete is 404', async () => {
    const [newest] = (await t.request('GET', path())).body;
    const del = await t.request('DELETE', `${path()}/${newest.id}`);
    expect(del.status).toBe(204);
    expect((await t.request('GET', path())).body.map((k: { id: string }) => k.id)).not.toContain(newest.id);
    expectError(await t.request('DELETE', `${path()}/${newest.id}`), 404);
    expectError(await t.request('DELETE', `${path()}/not-a-uuid`), 404);
  });

  it('documents the three routes in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json', { auth: null })).body;
    const paths = Object.keys(doc.paths ?? {}).filter((p) => p.includes('provider-keys'));
    expect(paths.length).toBeGreaterThanOrEqual(2);
  });
});
