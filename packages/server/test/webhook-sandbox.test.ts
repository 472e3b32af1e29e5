import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, openSse, startTestServer, type TestServer, waitFor } from './helpers.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/**
 * Issue 33, finding 4: events carry their sandbox. A test key's upload used to reach every live endpoint, signed
 * with its secret, with nothing saying it came from the test sandbox. Now every webhook body and SSE event says
 * `env`, and an endpoint receives test-sandbox events only when it asked for them (`receiveTestEvents`).
 */

let t: TestServer;
let liveOnly: { receiver: Receiver; endpoint: Json; secret: string };
let optedIn: { receiver: Receiver; endpoint: Json; secret: string };

const base = () => `/v1/orgs/${t.orgId}/projects/${t.projectId}/webhooks`;

async function endpointWith(extra: Record<string, unknown>): Promise<typeof liveOnly> {
  const holder = { secret: '' } as typeof liveOnly;
  holder.receiver = await startReceiver(() => holder.secret);
  const res = await t.request('POST', base(), { json: { url: holder.receiver.url, events: ['document.ready'], ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  holder.endpoint = res.body;
  holder.secret = res.body.secret;
  return holder;
}

const readyOf = (r: Receiver, documentId: string) => r.received.find((m) => m.type === 'document.ready' && m.body.data.documentId === documentId);

beforeAll(async () => {
  t = await startTestServer({ config: { webhooksAllowHttpLoopback: true, webhookRetryBaseMs: 100 } });
  liveOnly = await endpointWith({});
  optedIn = await endpointWith({ receiveTestEvents: true });
});
afterAll(async () => {
  await t?.close();
  await liveOnly?.receiver.close();
  await optedIn?.receiver.close();
});

describe('events carry their sandbox', () => {
  it('creates endpoints that receive live events only unless they ask for test events', () => {
    expect(liveOnly.endpoint.receiveTestEvents).toBe(false);
    expect(optedIn.endpoint.receiveTestEvents).toBe(true);
  });

  it('delivers a test-key upload only to the endpoint that opted in, its signed body saying env "test"', async () => {
    const cid = (await t.createCollection({ name: 'Sandboxed' }, t.testKey)).id;
    const doc = await t.ingest(cid, 'test.md', '# Test\n\nfrom the test sandbox\n', { auth: t.testKey });
    const got = await waitFor(async () => readyOf(optedIn.receiver, doc.id), 'the opted-in endpoint to receive the test event');
    expect(got.signatureValid).toBe(true);
    expect(got.body).toMatchObject({ type: 'document.ready', env: 'test', data: { documentId: doc.id, collectionId: cid } });
    // The live-only endpoint has no delivery of it at all, not merely a late one.
    const deliveries = await t.request('GET', `${base()}/${liveOnly.endpoint.id}/deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.filter((d: Json) => d.payload.data.documentId === doc.id)).toEqual([]);
    expect(readyOf(liveOnly.receiver, doc.id)).toBeUndefined();
  });

  it('delivers a live upload to both endpoints with env "live", and the delivery log shows it', async () => {
    const cid = (await t.createCollection({ name: 'Live' })).id;
    const doc = await t.ingest(cid, 'live.md', '# Live\n\nfrom the live sandbox\n');
    for (const { receiver } of [liveOnly, optedIn]) {
      const got = await waitFor(async () => readyOf(receiver, doc.id), 'both endpoints to receive the live event');
      expect(got.body.env).toBe('live');
      expect(got.signatureValid).toBe(true);
    }
    const deliveries = await t.request('GET', `${base()}/${liveOnly.endpoint.id}/deliveries`);
    expect(deliveries.body.find((d: Json) => d.payload.data.documentId === doc.id).payload.env).toBe('live');
  });

  it('turns test events on and off with PATCH', async () => {
    const on = await t.request('PATCH', `${base()}/${liveOnly.endpoint.id}`, { json: { receiveTestEvents: true } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({ receiveTestEvents: true, url: liveOnly.receiver.url });
    const cid = (await t.createCollection({ name: 'Sandboxed again' }, t.testKey)).id;
    const doc = await t.ingest(cid, 'again.md', '# Again\n\nfrom the test sandbox\n', { auth: t.testKey });
    expect((await waitFor(async () => readyOf(liveOnly.receiver, doc.id), 'the endpoint now receiving test events')).body.env).toBe('test');
    const off = await t.request('PATCH', `${base()}/${liveOnly.endpoint.id}`, { json: { receiveTestEvents: false } });
    expect(off.body.receiveTestEvents).toBe(false);
    expect((await t.request('PATCH', `${base()}/${liveOnly.endpoint.id}`, { json: { receiveTestEvents: 'yes' } })).status).toBe(400);
  });

  it('says env on every SSE document event: test for a test collection, live for a live one', async () => {
    const testCid = (await t.createCollection({ name: 'Streamed test' }, t.testKey)).id;
    const liveCid = (await t.createCollection({ name: 'Streamed live' })).id;
    const testStream = await openSse(`${t.url}/v1/collections/${testCid}/documents/events`, { authorization: `Bearer ${t.testKey}` });
    const liveStream = await openSse(`${t.url}/v1/collections/${liveCid}/documents/events`, { authorization: `Bearer ${t.liveKey}` });
    try {
      const testDoc = await t.upload(testCid, 's.md', '# S\n\ns\n', { auth: t.testKey });
      const liveDoc = await t.upload(liveCid, 's.md', '# S\n\ns\n');
      await testStream.next((m) => m.documentId === testDoc.id && m.status === 'ready');
      await liveStream.next((m) => m.documentId === liveDoc.id && m.status === 'ready');
      expect(testStream.messages.length).toBeGreaterThan(1);
      expect(testStream.messages.every((m) => (m as Json).env === 'test')).toBe(true);
      expect(liveStream.messages.every((m) => (m as Json).env === 'live')).toBe(true);
    } finally {
      testStream.close();
      liveStream.close();
    }
  });
});
