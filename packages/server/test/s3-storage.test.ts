import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createS3BlobStore } from '@dossier/adapters';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256, startTestServer, type TestServer } from './helpers.ts';
import { dossierContext } from '@dossier/core/testing';

/** The server with its files in an S3-protocol bucket (issue 13: DOSSIER_S3_URL), against s3rver. */

let s3: S3rver;
let dir: string;
let endpoint: string;
let t: TestServer;
const bucket = () => createS3BlobStore({ bucket: 'files', prefix: 'node-a/', client: { endpoint, region: 'us-east-1', forcePathStyle: true } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dossier-s3-server-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'files', configs: [] }] });
  endpoint = `http://127.0.0.1:${((await s3.run()) as AddressInfo).port}`;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  t = await startTestServer({ config: { s3Url: `s3://files/node-a?endpoint=${encodeURIComponent(endpoint)}` } });
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('files in S3', () => {
  it('stores uploads, their Markdown and nothing under the data directory, and serves them back', async () => {
    const collection = await t.createCollection({ name: 'bucketed' });
    const doc = await t.ingest(collection.id, 'kept.md', '# Kept\n\n## Where\n\nThe file lives in a bucket.\n');
    expect(doc.status).toBe('ready');
    const markdown = await t.request('GET', `/v1/documents/${doc.id}/markdown`);
    expect(JSON.stringify(markdown.body)).toContain('The file lives in a bucket.');
    const hits = await t.request('POST', `/v1/collections/${collection.id}/query`, { json: { q: 'bucket' } });
    expect(hits.body[0].document.id).toBe(doc.id);
    expect(existsSync(join(t.dataDir, 'blobs'))).toBe(false);
    const bucket = createS3BlobStore({ bucket: 'files', prefix: 'node-a/', client: { endpoint, region: 'us-east-1', forcePathStyle: true } });
    const stats = await t.request('GET', `/v1/collections/${collection.id}/stats`);
    expect(stats.body.storageBytes).toBeGreaterThan(0);
    const record = await dossierContext(t.server.dossier).store.getDocument(doc.id);
    expect(record?.storageKey).toBeTruthy();
    expect(await bucket.stat(record!.storageKey!)).toEqual({ size: Buffer.byteLength('# Kept\n\n## Where\n\nThe file lives in a bucket.\n') });
    expect(await bucket.stat(record!.markdownStorageKey!)).not.toBeNull();
    bucket.close();
  });
});

describe('presigned uploads straight to S3', () => {
  /** upload-url for `bytes` (declaring their size unless told not to) → {documentId, uploadUrl}. */
  async function requestUploadUrl(collectionId: string, filename: string, bytes: Uint8Array, declare = true) {
    const res = await t.request('POST', `/v1/collections/${collectionId}/documents/upload-url`, {
      json: { filename, ...(declare ? { fileSizeBytes: bytes.byteLength } : {}) },
    });
    expect(res.status).toBe(201);
    return res.body as { documentId: string; uploadUrl: string };
  }
  const put = (url: string, bytes: Uint8Array) => fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });

  it('hands out a URL of the bucket with the length signed; the file goes there, confirm moves it into place and the worker hashes it', async () => {
    const collection = await t.createCollection({ name: 'presigned' });
    const bytes = new TextEncoder().encode('# Presigned\n\n## Route\n\nThis file never passed through the API node.\n');
    const { documentId, uploadUrl } = await requestUploadUrl(collection.id, 'presigned.md', bytes);
    const url = new URL(uploadUrl);
    expect(url.origin).toBe(endpoint);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect([...url.searchParams.keys()].some((k) => k.startsWith('x-amz-checksum'))).toBe(false);
    expect((await put(uploadUrl, bytes)).status).toBe(200);
    const confirmed = await t.request('POST', `/v1/collections/${collection.id}/documents/${documentId}/confirm`, { json: {} });
    expect(confirmed.body).toMatchObject({ status: 'uploading', fileSizeBytes: bytes.byteLength });
    const doc = await t.waitDone(documentId);
    expect(doc).toMatchObject({ status: 'ready', contentHash: sha256(bytes) });
    const record = await dossierContext(t.server.dossier).store.getDocument(documentId);
    const store = bucket();
    expect(await store.get(record!.storageKey!)).toEqual(bytes);
    expect(await store.stat(record!.storageKey!.replace(/original$/, 'upload'))).toBeNull();
    // The URL still works at S3 for its 15 minutes, but a PUT now lands where nothing reads: the stored file stays.
    const replay = new TextEncoder().encode('#'.repeat(bytes.byteLength));
    expect((await put(uploadUrl, replay)).status).toBe(200);
    expect(await store.get(record!.storageKey!)).toEqual(bytes);
    const again = await t.request('POST', `/v1/collections/${collection.id}/documents/${documentId}/confirm`, { json: {} });
    expect(again.body).toMatchObject({ status: 'ready' });
    store.close();
  });

  it('confirm refuses and deletes an object of another size than declared, and the document stays pending', async () => {
    const collection = await t.createCollection({ name: 'presigned-size' });
    const bytes = new TextEncoder().encode('# Declared\n\nTwelve bytes more or less.\n');
    const { documentId, uploadUrl } = await requestUploadUrl(collection.id, 'size.md', bytes);
    expect(new URL(uploadUrl).pathname).toBe(`/files/node-a/live/${t.projectId}/${collection.id}/${documentId}/upload`);
    // Real S3 refuses this PUT (the length is signed); s3rver does not check V4 signatures, so confirm must.
    expect((await put(uploadUrl, bytes.subarray(0, 10))).status).toBe(200);
    const confirm = await t.request('POST', `/v1/collections/${collection.id}/documents/${documentId}/confirm`, { json: {} });
    expect(confirm.status).toBe(400);
    expect(confirm.body.error).toContain(`${bytes.byteLength} bytes`);
    const store = bucket();
    const record = await dossierContext(t.server.dossier).store.getDocument(documentId);
    expect(record).toMatchObject({ status: 'pending', storageKey: null });
    expect(await store.stat(`live/${t.projectId}/${collection.id}/${documentId}/upload`)).toBeNull();
    store.close();
    const notYet = await t.request('POST', `/v1/collections/${collection.id}/documents/${documentId}/confirm`, { json: {} });
    expect(notYet.status).toBe(400);
    expect(notYet.body.error).toContain('not been uploaded');
  });

  it("without a declared size the URL is the server's own signed route, which bounds the body itself", async () => {
    const collection = await t.createCollection({ name: 'undeclared' });
    const bytes = new TextEncoder().encode('# Undeclared\n\nSize unknown at upload-url.\n');
    const { documentId, uploadUrl } = await requestUploadUrl(collection.id, 'undeclared.md', bytes, false);
    expect(uploadUrl.startsWith(`${t.url}/v1/uploads/`)).toBe(true);
    expect((await put(uploadUrl, bytes)).status).toBe(200);
    expect((await put(uploadUrl, bytes)).status).toBe(409);
    await t.request('POST', `/v1/collections/${collection.id}/documents/${documentId}/confirm`, { json: {} });
    expect(await t.waitDone(documentId)).toMatchObject({ status: 'ready', contentHash: sha256(bytes) });
  });
});
