import type { ServiceEvent } from '@dossier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer, waitFor } from './helpers.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';
import { dossierContext } from '@dossier/core/testing';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

let t: TestServer;
let receiver: Receiver;
let secret = '';
let endpoint: Json;
let jwt: string;

const base = () => `/v1/orgs/${t.orgId}/projects/${t.projectId}/webhooks`;

beforeAll(async () => {
  t = await startTestServer({ config: { webhooksAllowHttpLoopback: true, webhookRetryBaseMs: 100 } });
  receiver = await startReceiver(() => secret);
  const login = await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } });
  jwt = login.body.token;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('webhook endpoints over HTTP', () => {
  it('creates an endpoint with a JWT and returns its 64-hex secret once', async () => {
    const res = await t.request('POST', base(), { auth: jwt, json: { url: receiver.url, description: 'local receiver' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body).toMatchObject({ url: receiver.url, events: [], enabled: true, description: 'local receiver' });
    secret = res.body.secret;
    endpoint = res.body;
    const list = await t.request('GET', base());
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0].secret).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(secret);
  });

  it('refuses URLs that are not HTTPS (plain HTTP only to loopback, as configured)', async () => {
    expectError(await t.request('POST', base(), { json: { url: 'http://example.com/hook' } }), 400, /HTTPS/);
    expectError(await t.request('POST', base(), { json: { url: 'ftp://example.com/hook' } }), 400, /HTTPS/);
    expectError(await t.request('POST', base(), { json: { url: 'not a url' } }), 400, /url/);
    expectError(await t.request('POST', base(), { json: { url: 'https://example.com', events: ['document.nope'] } }), 400, /events/);
  });

  it('answers 401 without credentials and 404 for another tenant', async () => {
    expectError(await t.request('GET', base(), { auth: null }), 401, /required/);
    expectError(await t.request('GET', base(), { auth: 'not-a-jwt' }), 401);
    const other = await t.server.dossier.auth.bootstrap('other@example.test', 'another long password');
    expectError(await t.request('GET', base(), { auth: other!.liveKey }), 404, /not found/);
    const theirs = `/v1/orgs/${other!.orgId}/projects/${other!.projectId}/webhooks`;
    expectError(await t.request('GET', theirs, { auth: jwt }), 404, /not found/);
    expectError(await t.request('PATCH', `${base()}/${endpoint.id}`, { auth: other!.liveKey, json: { enabled: false } }), 404);
  });

  it('updates with PATCH: only the fields sent change', async () => {
    const res = await t.request('PATCH', `${base()}/${endpoint.id}`, { json: { description: 'renamed', events: ['document.ready', 'document.error'] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ url: receiver.url, description: 'renamed', events: ['document.ready', 'document.error'], enabled: true });
    expect(res.body.secret).toBeUndefined();
    expectError(await t.request('PATCH', `${base()}/${endpoint.id}`, { json: { url: 'http://example.com' } }), 400, /HTTPS/);
    expectError(await t.request('GET', `${base()}/${endpoint.id}/deliveries?limit=101`), 400, /limit/);
  });
});

describe('signed deliveries', () => {
  it('posts document.ready and document.error with the spec body and headers, each signature verified', async () => {
    const c = await t.createCollection({ name: 'hooks' });
    const ready = await t.ingest(c.id, 'note.md', '# Hello\n\nworld\n');
    const failed = await t.waitDone((await t.upload(c.id, 'image.md', PNG)).id);
    expect(failed.status).toBe('error');
    await waitFor(() => receiver.received.length >= 2, 'both events', 20_000);
    const byType = Object.fromEntries(receiver.received.map((r) => [r.type, r]));
    for (const r of receiver.received) {
      expect(r.signatureValid).toBe(true);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-service-event-id']).toBe(r.body.id);
      expect(Object.keys(r.body)).toEqual(['id', 'type', 'env', 'created', 'data']);
      expect(r.body.env).toBe('live');
      expect(r.body.created).toBeGreaterThan(1.7e9);
      expect(r.body.created).toBeLessThan(Date.now() / 1000 + 1);
    }
    expect(byType['document.ready']!.body.data).toEqual({ documentId: ready.id, collectionId: c.id, projectId: t.projectId });
    expect(byType['document.error']!.body.data).toEqual({ documentId: failed.id, collectionId: c.id, projectId: t.projectId, error: failed.errorMessage });
    const log = await t.request('GET', `${base()}/${endpoint.id}/deliveries`, { auth: jwt });
    expect(log.status).toBe(200);
    expect(log.body).toHaveLength(2);
    for (const d of log.body) {
      expect(d).toMatchObject({ endpointId: endpoint.id, status: 'success', attempts: 1, responseStatus: 200, responseBody: 'ok' });
      expect(d.payload.id).toBe(d.id);
      expect(d.attemptLog).toHaveLength(1);
    }
  });

  it('retries a 500 and logs both attempts; a manual retry starts over', async () => {
    receiver.received.length = 0;
    receiver.answers.push(500);
    const c = await t.createCollection({ name: 'retry hooks' });
    const doc = await t.ingest(c.id, 'again.md', '# Again\n\ntext\n');
    await waitFor(() => receiver.received.length >= 2, 'a success after a failure', 20_000);
    expect(receiver.received.map((r) => r.id)).toEqual([receiver.received[0]!.id, receiver.received[0]!.id]);
    expect(receiver.received.every((r) => r.raw === receiver.received[0]!.raw && r.signatureValid)).toBe(true);
    const [delivery] = (await t.request('GET', `${base()}/${endpoint.id}/deliveries?limit=1`)).body;
    expect(delivery.payload.data.documentId).toBe(doc.id);
    expect(delivery).toMatchObject({ status: 'success', attempts: 2, responseStatus: 200 });
    expect(delivery.attemptLog.map((a: Json) => [a.attempt, a.responseStatus, a.responseBody])).toEqual([
      [1, 500, 'failing with 500'],
      [2, 200, 'ok'],
    ]);

    const retried = await t.request('POST', `${base()}/${endpoint.id}/deliveries/${delivery.id}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(retried.body).toMatchObject({ id: delivery.id, status: 'pending', attempts: 0 });
    await waitFor(() => receiver.received.length >= 3, 'the manual retry', 20_000);
    expect(receiver.received[2]!.id).toBe(delivery.id);
    await waitFor(
      async () => (await t.request('GET', `${base()}/${endpoint.id}/deliveries?limit=1`)).body[0].status === 'success',
      'the log to show it',
      20_000,
    );
    expectError(await t.request('POST', `${base()}/${endpoint.id}/deliveries/${crypto.randomUUID()}/retry`), 404);
  });

  it('lets members list endpoints and deliveries but not create, change, retry or delete them (issue 33)', async () => {
    await t.server.dossier.auth.bootstrap('hook-member@example.test', 'hook member long password');
    const login = await t.request('POST', '/auth/login', { auth: null, json: { email: 'hook-member@example.test', password: 'hook member long password' } });
    await dossierContext(t.server.dossier).store.setMembership(t.orgId, login.body.user.id, 'member');
    const member = login.body.token;
    const [delivery] = (await t.request('GET', `${base()}/${endpoint.id}/deliveries`, { auth: member })).body;
    expect(delivery).toBeDefined();
    expect((await t.request('GET', base(), { auth: member })).body.map((e: Json) => e.id)).toContain(endpoint.id);
    const attempts = (await t.request('GET', `${base()}/${endpoint.id}/deliveries`, { auth: jwt })).body[0].attempts;
    expectError(await t.request('POST', base(), { auth: member, json: { url: 'https://attacker.example/hook' } }), 403, /admin role/);
    expectError(await t.request('PATCH', `${base()}/${endpoint.id}`, { auth: member, json: { url: 'https://attacker.example/hook' } }), 403, /admin role/);
    expectError(await t.request('POST', `${base()}/${endpoint.id}/deliveries/${delivery.id}/retry`, { auth: member }), 403, /admin role/);
    expectError(await t.request('DELETE', `${base()}/${endpoint.id}`, { auth: member }), 403, /admin role/);
    const after = await t.request('GET', base(), { auth: jwt });
    expect(after.body.map((e: Json) => [e.id, e.url])).toEqual([[endpoint.id, receiver.url]]);
    expect((await t.request('GET', `${base()}/${endpoint.id}/deliveries`, { auth: jwt })).body[0].attempts).toBe(attempts);
  });

  it('posts duplicates.completed when a detection run ends, from the outbox written with the run', async () => {
    receiver.received.length = 0;
    const subscribed = await t.request('PATCH', `${base()}/${endpoint.id}`, { json: { events: ['document.ready', 'document.error', 'duplicates.completed'] } });
    expect(subscribed.status).toBe(200);
    const c = await t.createCollection({ name: 'runs' });
    await t.ingest(c.id, 'one.md', '# One\n\nThe quarterly review moves to Thursday.\n');
    const started = await t.request('POST', `/v1/collections/${c.id}/duplicates/detect`);
    expect(started.status).toBe(202);
    await waitFor(() => receiver.received.some((r) => r.type === 'duplicates.completed'), 'the completion event', 20_000);
    const completed = receiver.received.find((r) => r.type === 'duplicates.completed')!;
    expect(completed.signatureValid).toBe(true);
    expect(completed.body.data).toMatchObject({ collectionId: c.id, projectId: t.projectId, status: 'completed', error: null });
    const latest = await t.request('GET', `/v1/collections/${c.id}/duplicates/runs/latest`);
    expect(completed.body.data.runId).toBe(latest.body.id);
  });

  it('delivers every event after the receiver was down, each attempt logged', async () => {
    receiver.received.length = 0;
    await receiver.down();
    const store = dossierContext(t.server.dossier).store;
    const events: ServiceEvent[] = Array.from({ length: 1000 }, (_, i) => ({
      type: 'document.ready',
      projectId: t.projectId,
      env: 'live',
      data: { documentId: crypto.randomUUID(), collectionId: `outage-${i}`, projectId: t.projectId },
    }));
    for (let i = 0; i < events.length; i += 100) {
      await store.recordEvents(events.slice(i, i + 100));
      dossierContext(t.server.dossier).eventsRecorded();
    }
    await waitFor(
      async () => (await store.listWebhookDeliveries(endpoint.id, 1000)).filter((d) => d.attempts >= 1).length >= 1000,
      'failed attempts while down',
      60_000,
    );
    await receiver.up();
    await waitFor(async () => new Set(receiver.received.map((r) => r.id)).size >= 1000, 'every event delivered', 90_000);
    // The receiver answers before the sender records the success: wait for the records too.
    const outage = async () => (await store.listWebhookDeliveries(endpoint.id, 1000)).filter((d) => String(d.data.collectionId).startsWith('outage-'));
    await waitFor(async () => (await outage()).every((d) => d.status === 'success'), 'every delivery recorded', 10_000);
    const deliveries = await outage();
    expect(deliveries).toHaveLength(1000);
    expect(deliveries.every((d) => d.status === 'success' && d.attempts >= 2)).toBe(true);
    const attempts = await store.listWebhookAttempts(deliveries.map((d) => d.id));
    expect(attempts.length).toBe(deliveries.reduce((n, d) => n + d.attempts, 0));
    expect(attempts.filter((a) => a.responseStatus === null).every((a) => /ECONNREFUSED|connect/i.test(a.responseBody ?? ''))).toBe(true);
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
  }, 180_000);

  it('skips disabled endpoints and deletes an endpoint with its history', async () => {
    await t.request('PATCH', `${base()}/${endpoint.id}`, { json: { enabled: false } });
    receiver.received.length = 0;
    const c = await t.createCollection({ name: 'disabled' });
    await t.ingest(c.id, 'quiet.md', '# Quiet\n\nnothing sent\n');
    await t.server.dossier.idle();
    expect(receiver.received).toHaveLength(0);
    const del = await t.request('DELETE', `${base()}/${endpoint.id}`, { auth: jwt });
    expect(del.status).toBe(204);
    expect(await dossierContext(t.server.dossier).store.listWebhookDeliveries(endpoint.id, 10)).toEqual([]);
    expectError(await t.request('GET', `${base()}/${endpoint.id}/deliveries`), 404);
  });
});
