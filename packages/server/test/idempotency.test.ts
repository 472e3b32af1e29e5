import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer, uploadForm } from './helpers.ts';

/** Idempotency-Key on creating routes (issue 11): a retry gets the first answer instead of creating twice. */

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const create = (key: string | null, json: unknown, auth?: string) =>
  t.request('POST', '/v1/collections', { json, ...(auth ? { auth } : {}), headers: key ? { 'idempotency-key': key } : {} });

describe('Idempotency-Key', () => {
  it('creates a collection once for repeated requests with the same key, and replays the first answer', async () => {
    const body = { projectId: t.projectId, name: 'once' };
    const first = await create('create-once-1', body);
    expect(first.status).toBe(201);
    const again = await create('create-once-1', body);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const all = (await t.request('GET', '/v1/collections')).body as Json[];
    expect(all.filter((c) => c.name === 'once')).toHaveLength(1);
    // Without a key, or with another key, the request runs again.
    expect((await create('create-once-2', body)).body.id).not.toBe(first.body.id);
    expect((await create(null, body)).body.id).not.toBe(first.body.id);
  });

  it('refuses the same key with another request (422) and keeps keys of different callers apart', async () => {
    await create('reused-key', { projectId: t.projectId, name: 'first' });
    expectError(await create('reused-key', { projectId: t.projectId, name: 'second' }), 422, /different request/);
    const sandbox = await create('reused-key', { projectId: t.projectId, name: 'first' }, t.testKey);
    expect(sandbox.status).toBe(201);
    expect(sandbox.headers.get('idempotent-replayed')).toBeNull();
    expectError(await create('x'.repeat(256), { projectId: t.projectId, name: 'long' }), 400, /Idempotency-Key/);
  });

  it('stores an uploaded file once when the upload is retried with its key', async () => {
    const collection = await t.createCollection({ name: 'uploads' });
    const send = () =>
      t.request('POST', `/v1/collections/${collection.id}/documents`, {
        body: uploadForm('a.md', '# A\n\ntext\n'),
        headers: { 'idempotency-key': 'upload-a' },
      });
    const first = await send();
    expect(first.status).toBe(202);
    const retried = await send();
    expect(retried.body.id).toBe(first.body.id);
    const listed = await t.request('GET', `/v1/collections/${collection.id}/documents`);
    expect(listed.body.total).toBe(1);
  });

  it('hands a retried upload-url the same document and URL (no second pending document)', async () => {
    const collection = await t.createCollection({ name: 'presigned' });
    const ask = () =>
      t.request('POST', `/v1/collections/${collection.id}/documents/upload-url`, {
        json: { filename: 'b.md', contentType: 'text/markdown', fileSizeBytes: 12, contentHash: `sha256:${'a'.repeat(64)}` },
        headers: { 'idempotency-key': 'upload-url-b' },
      });
    const first = await ask();
    expect(first.status).toBe(201);
    const again = await ask();
    expect(again.body).toEqual(first.body);
    expect((await t.request('GET', `/v1/collections/${collection.id}/documents`)).body.total).toBe(1);
  });

  it('does not remember a request its validation refused: the fixed request runs under the same key', async () => {
    expect((await create('after-failure', { projectId: t.projectId, name: '' })).status).toBe(400);
    const fixed = await create('after-failure', { projectId: t.projectId, name: 'fixed' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });
});
