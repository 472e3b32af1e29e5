import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectError, openSse, type SseReader, startTestServer, type TestServer } from './helpers.ts';

let t: TestServer;
let cid: string;
const open: SseReader[] = [];

beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Events' })).id;
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
afterAll(async () => {
  await t?.close();
});

interface DocumentEvent {
  documentId: string;
  collectionId: string;
  status: string;
  sectionCount?: number;
  env: string;
}

const eventsUrl = (collectionId = cid) => `${t.url}/v1/collections/${collectionId}/documents/events`;

async function subscribe(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const s = await openSse(url, headers);
  open.push(s);
  return s;
}

/** The events of one document, once its terminal status has arrived. */
async function eventsOf(stream: SseReader, docId: string, terminal = 'ready'): Promise<DocumentEvent[]> {
  await stream.next((m: DocumentEvent) => m.documentId === docId && m.status === terminal);
  return (stream.messages as DocumentEvent[]).filter((m) => m.documentId === docId);
}

describe('GET /v1/collections/:id/documents/events (SSE)', () => {
  it('streams uploading, processing, sectioned (with sectionCount), embedded, ready for an upload, with the key as Bearer', async () => {
    const stream = await subscribe(eventsUrl(), { authorization: `Bearer ${t.liveKey}` });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toMatch(/no-cache/);

    const doc = await t.upload(cid, 'events.md', '# One\n\nfirst\n\n# Two\n\nsecond\n\n# Three\n\nthird\n');
    const events = await eventsOf(stream, doc.id);
    expect(events.map((e) => e.status)).toEqual(['uploading', 'processing', 'sectioned', 'embedded', 'ready']);
    for (const e of events) {
      expect(e.collectionId).toBe(cid);
      expect(e.env).toBe('live');
      if (e.status === 'sectioned') {
        expect(Object.keys(e).sort()).toEqual(['collectionId', 'documentId', 'env', 'sectionCount', 'status']);
        expect(e.sectionCount).toBe(3);
      } else {
        expect(Object.keys(e).sort()).toEqual(['collectionId', 'documentId', 'env', 'status']);
      }
    }
    expect(stream.comments).toContain('connected');
    expect((await t.request('GET', `/v1/documents/${doc.id}`)).body.sectionCount).toBe(3);
  });

  it('accepts the key as ?key= for browser EventSource clients', async () => {
    const stream = await subscribe(`${eventsUrl()}?key=${encodeURIComponent(t.liveKey)}`);
    expect(stream.status).toBe(200);
    const doc = await t.upload(cid, 'query-key.md', '# Q\n\nquery key\n');
    expect((await eventsOf(stream, doc.id)).map((e) => e.status)).toEqual(['uploading', 'processing', 'sectioned', 'embedded', 'ready']);
  });

  it('streams uploading, processing, error for a document that cannot be converted', async () => {
    const stream = await subscribe(eventsUrl(), { authorization: `Bearer ${t.liveKey}` });
    const doc = await t.upload(cid, 'binary.md', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    const events = await eventsOf(stream, doc.id, 'error');
    expect(events.map((e) => e.status)).toEqual(['uploading', 'processing', 'error']);
    for (const e of events) expect(e).not.toHaveProperty('sectionCount');
  });

  it('streams the re-run of a retried document', async () => {
    const doc = await t.upload(cid, 'retry.md', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    expect((await t.waitDone(doc.id)).status).toBe('error');
    const stream = await subscribe(eventsUrl(), { authorization: `Bearer ${t.liveKey}` });
    expect((await t.request('POST', `/v1/documents/${doc.id}/retry`)).status).toBe(200);
    expect((await eventsOf(stream, doc.id, 'error')).map((e) => e.status)).toEqual(['processing', 'error']);
  });

  it('sends only the events of its own collection', async () => {
    const otherId = (await t.createCollection({ name: 'Other events' })).id;
    const stream = await subscribe(eventsUrl(), { authorization: `Bearer ${t.liveKey}` });
    const elsewhere = await t.upload(otherId, 'elsewhere.md', '# E\n\nelsewhere\n');
    expect((await t.waitDone(elsewhere.id)).status).toBe('ready');
    const here = await t.upload(cid, 'here.md', '# H\n\nhere\n');
    await eventsOf(stream, here.id);
    expect((stream.messages as DocumentEvent[]).every((m) => m.collectionId === cid)).toBe(true);
    expect((stream.messages as DocumentEvent[]).some((m) => m.documentId === elsewhere.id)).toBe(false);
  });

  it('answers 401 with {error} for a bad key, in the header or in ?key=, and for no key on a private collection', async () => {
    for (const res of [
      await t.request('GET', `/v1/collections/${cid}/documents/events`, { auth: 'dsk_live_notarealkeynotarealkey00' }),
      await t.request('GET', `/v1/collections/${cid}/documents/events?key=dsk_live_notarealkeynotarealkey00`, { auth: null }),
      await t.request('GET', `/v1/collections/${cid}/documents/events`, { auth: null }),
    ]) {
      expectError(res, 401);
    }
  });

  it("answers 404 for an unknown collection and for another sandbox's collection", async () => {
    expectError(await t.request('GET', `/v1/collections/${crypto.randomUUID()}/documents/events`), 404, /not found/);
    expectError(await t.request('GET', `/v1/collections/${cid}/documents/events`, { auth: t.testKey }), 404, /not found/);
  });

  it('lets anyone follow a public collection', async () => {
    const pub = (await t.createCollection({ name: 'Public events', visibility: 'public' })).id;
    const stream = await subscribe(eventsUrl(pub));
    expect(stream.status).toBe(200);
    const doc = await t.upload(pub, 'public.md', '# P\n\npublic\n');
    expect((await eventsOf(stream, doc.id)).at(-1)!.status).toBe('ready');
  });
});
