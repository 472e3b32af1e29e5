/**
 * Hardening over HTTP (issue 9): response headers, CORS, the access log, caps on JSON bodies and metadata,
 * presigned upload URLs, time limits on slow clients, and the permissions of the data directory.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxWithFigureAndTable } from '../../../test/fixtures/documents.ts';
import { expectError, filesUnder, rawRequest, startTestServer, type TestServer, uploadForm } from './helpers.ts';

/** Nested `{a: {a: …}}` JSON text, `depth` levels deep, without building the object (a deep object overflows JSON.stringify). */
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('hardening', () => {
  let t: TestServer;
  let cid: string;

  beforeAll(async () => {
    t = await startTestServer({ config: { bodyIdleTimeoutMs: 1000, corsOrigins: ['https://app.example'] } });
    cid = (await t.createCollection()).id;
    await t.ingest(cid, 'cats.md', '# Cats\n\nCats sleep.\n', { metadata: { kind: 'note' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sends nosniff and no-store on API responses, errors included', async () => {
    for (const res of [
      await t.request('GET', '/v1/collections'),
      await t.request('GET', '/v1/collections/nope'),
      await t.request('GET', '/v1/usage', { auth: null }),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('allows cross-origin calls from the configured origins only', async () => {
    const allowed = await t.request('GET', '/v1/collections', { headers: { origin: 'https://app.example' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await t.request('GET', '/v1/collections', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${t.url}/v1/collections`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
  });

  it('logs one line per request with the route pattern and key id, never the query string or the key', async () => {
    t.logged.length = 0;
    await t.request('GET', `/v1/collections/${cid}?key=${t.liveKey}&secret=hunter2`);
    const lines = t.logged.filter((l) => l.msg === 'request');
    const get = lines.find((l) => l.route === '/v1/collections/:id');
    expect(get).toMatchObject({ level: 'info', method: 'GET', status: 200, keyId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(typeof get?.ms).toBe('number');
    const text = JSON.stringify(t.logged);
    expect(text).not.toContain(t.liveKey);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain(cid);
  });

  it('answers 400 quickly to a 9.7 MB metadata filter and keeps /health responsive (issue 9)', async () => {
    const huge = { q: 'cats', metadata: { blob: 'x'.repeat(9_700_000) } };
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 5 }, () => t.request('POST', `/v1/collections/${cid}/query`, { json: huge })));
    const health = await fetch(`${t.url}/health`);
    for (const res of answers) expectError(res, 400, /exceeds 1 MB/);
    expect(health.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('answers 400, not 500, to metadata nested 5,000 deep, in JSON and in a multipart field', async () => {
    const body = `{"filename":"a.md","contentType":"text/markdown","fileSizeBytes":3,"metadata":${nestedJson(5000)}}`;
    const res = await t.request('POST', `/v1/collections/${cid}/documents/upload-url`, { body, headers: { 'content-type': 'application/json' } });
    expectError(res, 400, /nested deeper than 64/);
    const form = uploadForm('deep.md', '# Deep\n', { metadata: nestedJson(5000) });
    expectError(await t.request('POST', `/v1/collections/${cid}/documents`, { body: form }), 400, /nested deeper than 16/);
  });

  it('caps metadata at 16 KB and 16 levels, and filters at 32 pairs', async () => {
    const upload = (metadata: unknown) =>
      t.request('POST', `/v1/collections/${cid}/documents/upload-url`, {
        json: { filename: 'm.md', contentType: 'text/markdown', fileSizeBytes: 3, metadata },
      });
    expectError(await upload({ text: 'x'.repeat(17_000) }), 400, /exceeds 16384 bytes/);
    expectError(await upload(JSON.parse(nestedJson(17))), 400, /nested deeper than 16/);
    expect((await upload(JSON.parse(nestedJson(15)))).status).toBe(201);
    const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expectError(await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'cats', metadata: pairs(33) } }), 400, /more than 32 pairs/);
    expect((await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'cats', metadata: pairs(32) } })).status).toBe(200);
  });

  it('binds a presigned URL to the declared size, uses it once, and refuses extra token segments', async () => {
    const url = async (size: number) =>
      (
        await t.request('POST', `/v1/collections/${cid}/documents/upload-url`, {
          json: { filename: 'u.md', contentType: 'text/markdown', fileSizeBytes: size },
        })
      ).body.uploadUrl as string;
    const put = (target: string, body: string) => fetch(target, { method: 'PUT', body });
    const ten = await url(10);
    expect((await put(ten, 'x'.repeat(6756))).status).toBe(400);
    expect((await put(ten, 'short')).status).toBe(400);
    expect((await put(`${ten}.extra`, '0123456789')).status).toBe(401);
    expect((await put(ten, '0123456789')).status).toBe(200);
    const again = await put(ten, '9876543210');
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: expect.stringMatching(/already used/) });
    // A chunked body (no Content-Length) longer than declared is cut off at the declared size.
    const chunked = await url(4);
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('too long for four'));
        c.close();
      },
    });
    const res = await fetch(chunked, { method: 'PUT', body: stream, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('answers 408 and closes the connection when a request body trickles past the request time limit', async () => {
    const quick = await startTestServer({ config: { requestTimeoutMs: 1000 } });
    try {
      const head = `POST /v1/collections/${cid}/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${quick.liveKey}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n`;
      const { response, closedAfterMs } = await rawRequest(quick.url, head, [
        { bytes: '{', afterMs: 10 },
        { bytes: '"', afterMs: 600 },
      ]);
      expect(response).toMatch(/^HTTP\/1\.1 408/);
      expect(closedAfterMs).toBeLessThan(4000);
    } finally {
      await quick.close();
    }
  });

  it('disconnects a client that goes silent while sending an upload body (long-running routes too)', async () => {
    const target = new URL(
      (
        await t.request('POST', `/v1/collections/${cid}/documents/upload-url`, {
          json: { filename: 'slow.md', contentType: 'text/markdown', fileSizeBytes: 10 },
        })
      ).body.uploadUrl,
    );
    const head = `PUT ${target.pathname} HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n`;
    const { closedAfterMs } = await rawRequest(t.url, head, [{ bytes: 'a', afterMs: 10 }]);
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(4000);
  });

  it('keeps the data directory 0700 and its files 0600', async () => {
    expect(statSync(t.dataDir).mode & 0o777).toBe(0o700);
    const files = filesUnder(t.dataDir);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect([file, statSync(join(t.dataDir, file)).mode & 0o077]).toEqual([file, 0]);
  });

  it('serves images of a private collection Cache-Control: private, of a public one public', async () => {
    const docx = docxWithFigureAndTable();
    const publicId = (await t.createCollection({ name: 'pub', visibility: 'public' })).id;
    for (const [collection, expected] of [
      [cid, /^private, max-age=\d+, immutable$/],
      [publicId, /^public, max-age=\d+, immutable$/],
    ] as const) {
      const doc = await t.ingest(collection, 'test.docx', docx);
      const [image] = (await t.request('GET', `/v1/documents/${doc.id}/images`)).body;
      const res = await t.request('GET', `/v1/documents/${doc.id}/images/${image.id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(expected);
    }
  });
});
