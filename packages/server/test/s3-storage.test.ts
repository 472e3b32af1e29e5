import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createS3BlobStore } from '@dossier/adapters';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';

/** The server with its files in an S3-protocol bucket (issue 13: DOSSIER_S3_URL), against s3rver. */

let s3: S3rver;
let dir: string;
let endpoint: string;
let t: TestServer;

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
    const record = await t.server.dossier.context.store.getDocument(doc.id);
    expect(record?.storageKey).toBeTruthy();
    expect(await bucket.stat(record!.storageKey!)).toEqual({ size: Buffer.byteLength('# Kept\n\n## Where\n\nThe file lives in a bucket.\n') });
    expect(await bucket.stat(record!.markdownStorageKey!)).not.toBeNull();
    bucket.close();
  });
});
