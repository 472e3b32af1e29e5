import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobStoreSuite } from '@dossier/core/testing';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3BlobStore, s3BlobStoreFromUrl } from '../src/s3/blob-store.ts';

/** The S3-protocol BlobStore against s3rver, a local S3 server (issue 13): the same conformance suite as the filesystem store. */

let server: S3rver;
let dir: string;
let endpoint: string;
const BUCKET = 'dossier-test';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dossier-s3rver-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const address = (await server.run()) as AddressInfo;
  endpoint = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const store = (prefix: string) =>
  createS3BlobStore({
    bucket: BUCKET,
    prefix,
    client: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
  });

let run = 0;
blobStoreSuite('s3 (s3rver)', async () => store(`run-${++run}/`));

describe('S3 BlobStore', () => {
  it('keeps deployments apart by prefix in one bucket', async () => {
    const a = store('tenant-a/');
    const b = store('tenant-b/');
    await a.put('c/x.bin', new Uint8Array([1, 2, 3]));
    expect(await b.stat('c/x.bin')).toBeNull();
    expect(await a.sizeOfPrefix('c/')).toBe(3);
    await a.deletePrefix('c/');
    expect(await a.stat('c/x.bin')).toBeNull();
  });
});

describe('S3 client uploads', () => {
  it('presigns a PUT a client can send without credentials, and moves the object to its final key', async () => {
    const s3 = store('uploads/');
    const bytes = new TextEncoder().encode('straight from the client');
    const url = await s3.clientUploads!.presignPut('c/d/upload', bytes.byteLength, 60);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('60');
    expect((await fetch(url, { method: 'PUT', body: bytes })).status).toBe(200);
    expect(await s3.stat('c/d/upload')).toEqual({ size: bytes.byteLength });
    await s3.move('c/d/upload', 'c/d/original');
    expect(await s3.get('c/d/original')).toEqual(bytes);
    expect(await s3.stat('c/d/upload')).toBeNull();
    await expect(s3.move('c/d/upload', 'c/d/original')).rejects.toMatchObject({ code: 'not_found' });
    s3.close();
  });

  it('checks keys before presigning, like every other call', async () => {
    const s3 = store('uploads/');
    await expect(s3.clientUploads!.presignPut('../escape', 1, 60)).rejects.toMatchObject({ code: 'invalid_input' });
    s3.close();
  });
});

describe('s3BlobStoreFromUrl', () => {
  it('reads bucket, prefix, endpoint and path style from the URL', async () => {
    const fromUrl = s3BlobStoreFromUrl(`s3://${BUCKET}/deploy-1?endpoint=${encodeURIComponent(endpoint)}&region=eu-west-1`);
    process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
    await fromUrl.put('a/b.txt', new TextEncoder().encode('hello'));
    expect(await store('deploy-1/').stat('a/b.txt')).toEqual({ size: 5 });
    expect(() => s3BlobStoreFromUrl('https://bucket/x')).toThrow(/s3:\/\/bucket/);
  });
});
