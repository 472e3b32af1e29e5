import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Doc, expectError, startTestServer, type TestServer, uploadForm } from './helpers.ts';

const MB = 1024 * 1024;
/** Presigned uploads on this server stop at 1 MB, so the limit is cheap to cross. */
const MAX_PRESIGNED = MB;

let t: TestServer;
let cid: string;
beforeAll(async () => {
  t = await startTestServer({ config: { maxUploadBytes: MAX_PRESIGNED } });
  cid = (await t.createCollection({ name: 'Bad input' })).id;
});
afterAll(async () => {
  await t?.close();
});

/** POST a raw body with a content type. */
const raw = (path: string, body: string, type = 'application/json') => t.request('POST', path, { body, headers: { 'content-type': type } });

describe('files the pipeline cannot read end in error with a clear errorMessage', () => {
  it('accepts an empty file (202), which then ends in error saying it is empty', async () => {
    const doc = await t.upload(cid, 'empty.md', new Uint8Array(0));
    expect(doc.fileSizeBytes).toBe(0);
    const done = await t.waitDone(doc.id);
    expect(done.status).toBe('error');
    expect(done.errorMessage).toMatch(/empty/i);
    expect(done.sectionCount).toBeNull();
    expectError(await t.request('GET', `/v1/documents/${doc.id}/markdown`), 404);
  });

  it('treats truncated PNG bytes named .md as the image they are, and says it is damaged', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    const done = await t.waitDone((await t.upload(cid, 'picture.md', png)).id);
    expect(done.status).toBe('error');
    // The type comes from the bytes (an image), never from the name: the message is the image converter's.
    expect(done.errorMessage).toMatch(/image/i);
    expect(done.errorMessage).toMatch(/corrupt|truncated|could not/i);
  });

  it('rejects random binary bytes named .txt as an unsupported type', async () => {
    const bytes = new Uint8Array(4096);
    let seed = 42;
    for (let i = 0; i < bytes.length; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      bytes[i] = seed & 0xff;
    }
    const done = await t.waitDone((await t.upload(cid, 'noise.txt', bytes)).id);
    expect(done.status).toBe('error');
    expect(done.errorMessage).toMatch(/Unsupported file type application\/octet-stream/);
  });

  it('lists the documents in error under status=error, each with its errorMessage', async () => {
    const errors = (await t.request('GET', `/v1/collections/${cid}/documents?status=error`)).body;
    expect(errors.total).toBeGreaterThanOrEqual(3); // the empty, PNG and random files above
    expect(errors.documents.every((d: Doc) => d.status === 'error' && typeof d.errorMessage === 'string' && d.errorMessage.length > 0)).toBe(true);
  });
});

describe('size limits', () => {
  it('answers 413 to a direct upload of 25 MB + 1 byte and keeps serving', async () => {
    const res = await t.request('POST', `/v1/collections/${cid}/documents`, { body: uploadForm('big.bin', new Uint8Array(25 * MB + 1)) });
    expectError(res, 413, /25 MB/);
    expect((await t.request('GET', `/v1/collections/${cid}`)).status).toBe(200);
    const list = (await t.request('GET', `/v1/collections/${cid}/documents`)).body.documents as Doc[];
    expect(list.some((d) => d.filename === 'big.bin')).toBe(false);
    expect((await t.ingest(cid, 'after-413.md', '# Still\n\nserving\n')).status).toBe('ready');
  });

  it('accepts a direct upload of exactly 25 MB', async () => {
    const doc = await t.upload(cid, 'exact.bin', new Uint8Array(25 * MB));
    expect(doc.fileSizeBytes).toBe(25 * MB);
    expect((await t.waitDone(doc.id)).status).toBe('error'); // zero bytes are binary, not a document
  });

  it('answers 413 when one file of a batch upload is over 25 MB', async () => {
    const form = uploadForm('small.md', '# s\n\ns\n');
    form.append('file', new Blob([new Uint8Array(25 * MB + 1)]), 'big.bin');
    expectError(await t.request('POST', `/v1/collections/${cid}/documents/batch`, { body: form }), 413, /25 MB/);
  });

  it('answers 413 to a presigned PUT over the configured maximum and leaves the document pending', async () => {
    const url = await t.request('POST', `/v1/collections/${cid}/documents/upload-url`, { json: { filename: 'huge.md' } });
    const res = await fetch(url.body.uploadUrl, { method: 'PUT', body: new Uint8Array(MAX_PRESIGNED + 1) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.any(String) });
    expect((await t.request('GET', `/v1/documents/${url.body.documentId}`)).body.status).toBe('pending');
  });
});

describe('malformed requests answer 400 with {error}', () => {
  it('rejects malformed JSON', async () => {
    expectError(await raw('/v1/collections', '{"projectId": '), 400, /Malformed JSON/);
    expectError(await raw(`/v1/collections/${cid}/query`, 'not json'), 400, /Malformed JSON/);
  });

  it('rejects a JSON body sent with another content type', async () => {
    expectError(await raw(`/v1/collections/${cid}/query`, '{"q":"x"}', 'text/plain'), 400, /application\/json/);
  });

  it('rejects a JSON body that is not an object', async () => {
    expectError(await raw(`/v1/collections/${cid}/query`, '[1,2]'), 400);
    expectError(await raw(`/v1/collections/${cid}/query`, 'null'), 400);
  });

  it('rejects out-of-range limits: query 0 and 51, scan top_k 0 and 101, list 0 and 501, negative offset', async () => {
    const q = (limit: number) => t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'x', limit } });
    expectError(await q(0), 400, /limit/);
    expectError(await q(51), 400, /limit/);
    expectError(await q(2.5), 400, /limit/);
    expect((await q(50)).status).toBe(200);
    const scan = (top_k: number) => t.request('POST', `/v1/collections/${cid}/sections/scan`, { json: { query: 'x', top_k } });
    expectError(await scan(0), 400, /top_k/);
    expectError(await scan(101), 400, /top_k/);
    expect((await scan(100)).status).toBe(200);
    expectError(await t.request('GET', `/v1/collections/${cid}/documents?limit=0`), 400, /limit/);
    expectError(await t.request('GET', `/v1/collections/${cid}/documents?limit=501`), 400, /limit/);
    expectError(await t.request('GET', `/v1/collections/${cid}/documents?limit=ten`), 400, /limit/);
    expectError(await t.request('GET', `/v1/collections/${cid}/documents?offset=-1`), 400, /offset/);
  });

  it('rejects unknown body keys, naming them', async () => {
    expectError(await t.request('POST', '/v1/collections', { json: { projectId: t.projectId, name: 'x', colour: 'red' } }), 400, /'colour'/);
    expectError(await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'x', limt: 5 } }), 400, /'limt'/);
    expectError(await t.request('POST', `/v1/collections/${cid}/sections/scan`, { json: { q: 'x' } }), 400, /'q'/);
    expectError(await t.request('PATCH', `/v1/collections/${cid}`, { json: { chunk_size: 100 } }), 400, /'chunk_size'/);
    expectError(await t.request('POST', `/v1/collections/${cid}/documents/upload-url`, { json: { filename: 'a.md', size: 3 } }), 400, /'size'/);
    expectError(await t.request('GET', `/v1/collections/${cid}/documents?page=2`), 400, /'page'/);
  });

  it('rejects missing required fields, naming them', async () => {
    expectError(await t.request('POST', `/v1/collections/${cid}/query`, { json: {} }), 400, /q/);
    expectError(await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: '   ' } }), 400, /q/);
    expectError(await t.request('POST', `/v1/collections/${cid}/documents/upload-url`, { json: {} }), 400, /filename/);
  });

  it('rejects bad multipart uploads: no file, non-JSON tags, tags that are not an array, unknown fields, or no multipart at all', async () => {
    const post = (body: FormData | string) =>
      t.request('POST', `/v1/collections/${cid}/documents`, typeof body === 'string' ? { body, headers: { 'content-type': 'text/plain' } } : { body });
    const onlyTags = new FormData();
    onlyTags.append('tags', '["a"]');
    expectError(await post(onlyTags), 400, /file/);
    expectError(await post(uploadForm('a.md', '# a', { tags: 'not json' })), 400, /'tags'/);
    expectError(await post(uploadForm('a.md', '# a', { tags: { a: 1 } })), 400, /'tags'/);
    expectError(await post(uploadForm('a.md', '# a', { metadata: [1, 2] })), 400, /'metadata'/);
    const extra = uploadForm('a.md', '# a');
    extra.append('colour', 'red');
    expectError(await post(extra), 400, /'colour'/);
    expectError(await post('just text'), 400, /multipart/);
  });

  it('holds multipart tags to the same limits as JSON tags (at most 100, each 1 to 200 characters)', async () => {
    const post = (tags: unknown) => t.request('POST', `/v1/collections/${cid}/documents`, { body: uploadForm('tags.md', '# t', { tags }) });
    expectError(await post(Array.from({ length: 101 }, (_, i) => `t${i}`)), 400, /tags/);
    expectError(await post(['x'.repeat(201)]), 400, /tags/);
    expectError(await post(['']), 400, /tags/);
    const ok = await post(Array.from({ length: 100 }, (_, i) => `T${i}`));
    expect(ok.status).toBe(202);
    const again = await t.request('PATCH', `/v1/collections/${cid}/documents/${ok.body.id}`, { json: { tags: ok.body.tags } });
    expect(again.status).toBe(200);
  });
});

describe('paths that name nothing answer 404 with {error}', () => {
  const fake = '00000000-0000-4000-8000-000000000000';
  const paths = (id: string): [string, string][] => [
    ['GET', `/v1/collections/${id}`],
    ['GET', `/v1/collections/${id}/stats`],
    ['PATCH', `/v1/collections/${id}`],
    ['DELETE', `/v1/collections/${id}`],
    ['GET', `/v1/collections/${id}/documents`],
    ['GET', `/v1/collections/${id}/tags`],
    ['POST', `/v1/collections/${id}/query`],
    ['POST', `/v1/collections/${id}/sections/scan`],
    ['GET', `/v1/documents/${id}`],
    ['GET', `/v1/documents/${id}/wait`],
    ['GET', `/v1/documents/${id}/markdown`],
    ['GET', `/v1/documents/${id}/sections`],
    ['DELETE', `/v1/documents/${id}`],
    ['POST', `/v1/documents/${id}/retry`],
    ['GET', `/v1/sections/${id}`],
    ['GET', `/v1/sections/${id}/chunks`],
  ];
  const bodyFor = (path: string): unknown =>
    path.endsWith('/query')
      ? { q: 'x' }
      : path.endsWith('/scan')
        ? { query: 'x' }
        : path.includes('/collections/') && !path.includes('/documents')
          ? {}
          : undefined;

  for (const [label, id] of [
    ['an invalid UUID', 'not-a-uuid'],
    ['an unknown UUID', fake],
  ] as const) {
    it(`answers 404 for ${label} in every path`, async () => {
      for (const [method, path] of paths(id)) {
        const json = method === 'GET' || method === 'DELETE' ? undefined : bodyFor(path);
        const res = await t.request(method, path, { json });
        expectError(res, 404, /not found/);
      }
    });
  }

  it('answers 404 for a document id that is not a UUID inside a collection path', async () => {
    expectError(await t.request('PATCH', `/v1/collections/${cid}/documents/nope`, { json: { tags: [] } }), 404, /not found/);
    expectError(await t.request('POST', `/v1/collections/${cid}/documents/nope/confirm`), 404, /not found/);
  });

  it('answers 404 with {error} for a path that is no route', async () => {
    expectError(await t.request('GET', '/v1/nothing-here'), 404, /No route/);
  });
});
