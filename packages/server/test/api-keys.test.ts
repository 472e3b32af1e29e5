import { ScriptedModel, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_KEY_CHECK_MS } from '../src/routes/events.ts';
import { expectError, type Json, startTestServer, type TestServer } from './helpers.ts';

/** API key management (issue 9): project keys listed, created, rotated and revoked by org admins; org keys invoke agents. */

let t: TestServer;
let admin: string;
let member: string;
let keys: string;
let orgKeys: string;

beforeAll(async () => {
  t = await startTestServer();
  const login = (email: string, password: string) => t.request('POST', '/auth/login', { auth: null, json: { email, password } });
  admin = (await login(t.email, t.password)).body.token;
  await t.server.dossier.auth.bootstrap('member@example.test', 'member long password');
  const memberLogin = await login('member@example.test', 'member long password');
  await dossierContext(t.server.dossier).store.setMembership(t.orgId, memberLogin.body.user.id, 'member');
  member = memberLogin.body.token;
  keys = `/v1/orgs/${t.orgId}/projects/${t.projectId}/api-keys`;
  orgKeys = `/v1/orgs/${t.orgId}/api-keys`;
});
afterAll(async () => {
  await t?.close();
});

describe('project API keys', () => {
  it('creates a named key shown once, lists keys by prefix and last four, and records their last use', async () => {
    const created = await t.request('POST', keys, { auth: admin, json: { env: 'test', name: 'CI' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ env: 'test', name: 'CI', prefix: 'dsk_test_', lastUsedAt: null, revokedAt: null });
    expect(created.body.key).toMatch(/^dsk_test_/);
    expect(created.body.lastFour).toBe(created.body.key.slice(-4));
    expect((await t.request('GET', '/v1/collections', { auth: created.body.key })).status).toBe(200);
    const list = await t.request('GET', keys, { auth: admin });
    expect(list.status).toBe(200);
    expect(list.body.map((k: Json) => k.env).sort()).toEqual(['live', 'test', 'test']);
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect(JSON.stringify(list.body)).not.toContain(t.liveKey);
    const used = list.body.find((k: Json) => k.id === created.body.id);
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThan(Date.parse(used.createdAt) - 1);
  });

  it('rotates a key (the old one stops at once) and revokes one', async () => {
    const created = (await t.request('POST', keys, { auth: admin, json: { env: 'live', name: 'app' } })).body;
    const rotated = await t.request('POST', `${keys}/${created.id}/rotate`, { auth: admin });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ env: 'live', name: 'app' });
    expectError(await t.request('GET', '/v1/collections', { auth: created.key }), 401);
    expect((await t.request('GET', '/v1/collections', { auth: rotated.body.key })).status).toBe(200);
    expect((await t.request('DELETE', `${keys}/${rotated.body.id}`, { auth: admin })).status).toBe(204);
    expectError(await t.request('GET', '/v1/collections', { auth: rotated.body.key }), 401, /Invalid API key/);
    const listed = (await t.request('GET', keys, { auth: admin })).body.find((k: Json) => k.id === rotated.body.id);
    expect(listed.revokedAt).not.toBeNull();
    expectError(await t.request('DELETE', `${keys}/${crypto.randomUUID()}`, { auth: admin }), 404);
  });

  it('lets only admins of the org manage keys: members 403, others and API keys refused', async () => {
    expectError(await t.request('GET', keys, { auth: member }), 403, /admin/);
    expectError(await t.request('POST', keys, { auth: member, json: { env: 'live' } }), 403);
    expectError(await t.request('GET', keys), 401);
    expectError(await t.request('POST', keys, { auth: admin, json: { env: 'prod' } }), 400);
  });

  it('closes an open event stream once its key is revoked', async () => {
    const created = (await t.request('POST', keys, { auth: admin, json: { env: 'live' } })).body;
    const collection = await t.createCollection({ name: 'streamed' });
    const res = await fetch(`${t.url}/v1/collections/${collection.id}/documents/events?key=${created.key}`);
    expect(res.status).toBe(200);
    await t.request('DELETE', `${keys}/${created.id}`, { auth: admin });
    const started = Date.now();
    await res.text(); // ends when the server closes the stream
    expect(Date.now() - started).toBeLessThan(STREAM_KEY_CHECK_MS * 3);
  }, 30_000);
});

describe('org API keys', () => {
  it("invoke the org's hosted agents (and nothing else), until revoked", async () => {
    const created = await t.request('POST', orgKeys, { auth: admin, json: { name: 'backend' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ env: 'org', prefix: 'dsk_org_', name: 'backend' });
    const agentsPath = `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents`;
    await t.request('POST', agentsPath, { auth: admin, json: { slug: 'helper', name: 'H', systemPrompt: 'x', model: 'scripted', allowedCollectionIds: null } });
    dossierContext(t.server.dossier).models = scriptedResolver(new ScriptedModel([{ text: 'Hello from the agent.' }]));
    const invoked = await t.request('POST', `${agentsPath}/helper/invoke/sync`, { auth: created.body.key, json: { query: 'Hi' } });
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    expect(invoked.body).toMatchObject({ status: 'succeeded', response: 'Hello from the agent.' });
    const run = await t.request('GET', `${agentsPath}/helper/runs/${invoked.body.runId}`, { auth: admin });
    expect(run.body.createdBy).toBeNull();
    expectError(await t.request('GET', '/v1/collections', { auth: created.body.key }), 401);
    expectError(await t.request('GET', agentsPath, { auth: created.body.key }), 401);
    expect((await t.request('GET', orgKeys, { auth: admin })).body.map((k: Json) => k.id)).toContain(created.body.id);
    expect((await t.request('DELETE', `${orgKeys}/${created.body.id}`, { auth: admin })).status).toBe(204);
    expectError(await t.request('POST', `${agentsPath}/helper/invoke/sync`, { auth: created.body.key, json: { query: 'Hi' } }), 401);
  });
});
