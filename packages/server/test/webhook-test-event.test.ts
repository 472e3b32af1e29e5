import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossierContext } from '@dossier/core/testing';
import { expectError, type Json, startTestServer, type TestServer } from './helpers.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/**
 * Issue 37: an admin sends a signed `webhook.test` event to one endpoint and sees the receiver's answer; it is in
 * the delivery log, sent whatever the endpoint subscribes to, never retried, and refused to members.
 */

let t: TestServer;
let receiver: Receiver;
let secret = '';
let endpoint: Json;
let adminJwt: string;
let memberJwt: string;

const base = () => `/v1/orgs/${t.orgId}/projects/${t.projectId}/webhooks`;

beforeAll(async () => {
  t = await startTestServer({ config: { webhooksAllowHttpLoopback: true, webhookRetryBaseMs: 50 } });
  receiver = await startReceiver(() => secret);
  adminJwt = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  const credentials = { email: 'member@example.test', password: 'member long password' };
  await t.server.dossier.auth.bootstrap(credentials.email, credentials.password);
  const member = (await t.request('POST', '/auth/login', { auth: null, json: credentials })).body;
  await dossierContext(t.server.dossier).store.setMembership(t.orgId, member.user.id, 'member');
  memberJwt = member.token;
  // Subscribed to document.error only: the test event reaches it all the same.
  const created = await t.request('POST', base(), { auth: adminJwt, json: { url: receiver.url, events: ['document.error'] } });
  secret = created.body.secret;
  endpoint = created.body;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('POST …/webhooks/:endpointId/test', () => {
  it("delivers a signed webhook.test event now and answers with the delivery and the receiver's answer", async () => {
    const res = await t.request('POST', `${base()}/${endpoint.id}/test`, { auth: adminJwt });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      endpointId: endpoint.id,
      eventType: 'webhook.test',
      status: 'success',
      attempts: 1,
      responseStatus: 200,
      responseBody: 'ok',
    });
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got!.signatureValid).toBe(true);
    expect(got!.type).toBe('webhook.test');
    expect(got!.id).toBe(res.body.id);
    expect(got!.body).toMatchObject({ id: res.body.id, type: 'webhook.test', env: 'live', data: { endpointId: endpoint.id, projectId: t.projectId } });
    expect(got!.body.data.message).toMatch(/test event/);
    expect(res.body.payload).toEqual(got!.body);
    const log = await t.request('GET', `${base()}/${endpoint.id}/deliveries`, { auth: adminJwt });
    expect(log.body.map((d: Json) => [d.eventType, d.status])).toEqual([['webhook.test', 'success']]);
    expect(log.body[0].attemptLog).toHaveLength(1);
  });

  it('records a failing receiver as failed once, without retries, with its status and body', async () => {
    receiver.answers.push(500);
    const res = await t.request('POST', `${base()}/${endpoint.id}/test`, { auth: adminJwt });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 500, responseBody: 'failing with 500' });
    expect(res.body.nextAttemptAt).toBeUndefined();
    const before = receiver.received.length;
    // A real wait is the behaviour: several retry delays of this server (50 ms base) pass and no retry comes.
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.received.length).toBe(before);
    const log = await t.request('GET', `${base()}/${endpoint.id}/deliveries`, { auth: adminJwt });
    expect(log.body[0]).toMatchObject({ id: res.body.id, status: 'failed', attempts: 1 });
  });

  it('reports a receiver that cannot be reached as failed with the reason', async () => {
    await receiver.down();
    try {
      const res = await t.request('POST', `${base()}/${endpoint.id}/test`, { auth: adminJwt });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'failed', attempts: 1 });
      expect(res.body.responseStatus).toBeUndefined();
      expect(res.body.responseBody).toBeTruthy();
    } finally {
      await receiver.up();
    }
  });

  it('works with the live key, refuses a member (403) and strangers (401/404), and sends nothing for them', async () => {
    const before = receiver.received.length;
    expect((await t.request('POST', `${base()}/${endpoint.id}/test`)).status).toBe(200); // the live key (default auth)
    expect(receiver.received.length).toBe(before + 1);
    expectError(await t.request('POST', `${base()}/${endpoint.id}/test`, { auth: memberJwt }), 403, /admin role/);
    expectError(await t.request('POST', `${base()}/${endpoint.id}/test`, { auth: null }), 401);
    expectError(await t.request('POST', `${base()}/${crypto.randomUUID()}/test`, { auth: adminJwt }), 404, /not found/);
    expectError(await t.request('POST', `${base()}/not-a-uuid/test`, { auth: adminJwt }), 404);
    expect(receiver.received.length).toBe(before + 1);
  });
});
