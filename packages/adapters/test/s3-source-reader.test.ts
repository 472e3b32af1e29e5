import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3BlobStore } from '../src/s3/blob-store.ts';
import { guardedLookup, refusedEndpointReason } from '../src/s3/endpoint-guard.ts';
import { createS3SourceOpener, openS3Source } from '../src/s3/source-reader.ts';

/** Issue 43: an S3 prefix opened as a server-side source, against s3rver: every page of the listing, stamps, reads. */

let server: S3rver;
let dir: string;
let endpoint: string;
const BUCKET = 'source-test';
const credentials = () => ({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dossier-s3-source-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  endpoint = `http://127.0.0.1:${((await server.run()) as AddressInfo).port}`;
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('openS3Source', () => {
  it('lists every object under the prefix past the first page, stamped by ETag, and reads them', async () => {
    const store = createS3BlobStore({
      bucket: BUCKET,
      prefix: 'docs/',
      client: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: credentials() },
    });
    const keys = Array.from({ length: 1005 }, (_, i) => `part/n-${String(i).padStart(4, '0')}.md`);
    for (let start = 0; start < keys.length; start += 50)
      await Promise.all(keys.slice(start, start + 50).map((key, i) => store.put(key, new TextEncoder().encode(`note ${start + i}`))));
    await store.put('part/.hidden.md', new TextEncoder().encode('skipped'));
    await createS3BlobStore({
      bucket: BUCKET,
      prefix: 'other/',
      client: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: credentials() },
    }).put('x.md', new Uint8Array([1]));
    const source = createS3SourceOpener({ allowPrivateEndpoints: true })({
      endpoint,
      region: 'us-east-1',
      bucket: BUCKET,
      prefix: 'docs/',
      forcePathStyle: true,
      credentials: credentials(),
    });
    const entries = await source.list();
    expect(entries.map((e) => e.path)).toEqual(keys);
    expect(entries.every((e) => /^etag:[0-9a-f]{32}$/.test(e.stamp))).toBe(true);
    expect(new TextDecoder().decode(await source.read('part/n-1004.md'))).toBe('note 1004');
    source.close();
    store.close();
  }, 120_000);
});

describe('the S3 source endpoint guard (SSRF)', () => {
  it('refuses loopback, private and link-local endpoints by default, and any non-http(s) one', async () => {
    for (const url of [
      'http://127.0.0.1:9000',
      'http://10.1.2.3',
      'http://192.168.0.10:9000',
      'http://[::1]:9000',
      'http://[fd00::1]',
      'http://[::ffff:127.0.0.1]',
      'http://0x7f.1:9000',
      'http://localhost:9000',
    ]) {
      expect(await refusedEndpointReason(url, false), url).toMatch(/address .*DOSSIER_SOURCES_ALLOW_PRIVATE_ENDPOINTS|is a (loopback|private|uniqueLocal)/);
    }
    expect(await refusedEndpointReason('http://169.254.169.254/latest', false)).toMatch(/linkLocal/);
    expect(await refusedEndpointReason('ftp://example.com', false)).toMatch(/http/);
    expect(await refusedEndpointReason('http://user:pw@8.8.8.8', false)).toMatch(/credentials/);
    expect(await refusedEndpointReason('https://8.8.8.8', false)).toBeNull();
  });

  it('allows private and loopback endpoints when the operator allows them, never link-local or unspecified ones', async () => {
    for (const url of ['http://127.0.0.1:9000', 'http://10.1.2.3', 'http://[fd00::1]', 'http://localhost:9000'])
      expect(await refusedEndpointReason(url, true), url).toBeNull();
    expect(await refusedEndpointReason('http://169.254.169.254', true)).toMatch(/linkLocal/);
    expect(await refusedEndpointReason('http://[fe80::1]', true)).toMatch(/linkLocal/);
    expect(await refusedEndpointReason('http://0.0.0.0:9000', true)).toMatch(/unspecified/);
  });

  it('fails a run of a source whose endpoint is refused, before any request, saying why', async () => {
    const source = openS3Source({ endpoint, region: 'us-east-1', bucket: BUCKET, prefix: 'docs/', forcePathStyle: true, credentials: credentials() });
    await expect(source.list()).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/S3 endpoint .* is refused: 127\.0\.0\.1 is a loopback address/),
    });
    source.close();
  });

  it('checks again at every connection: a name that resolves to a refused address is not connected to (DNS rebinding)', async () => {
    const lookup = (allowPrivate: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        guardedLookup(allowPrivate)('localhost', { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
      );
    await expect(lookup(false)).rejects.toThrow(/Refused to connect to localhost: .* loopback/);
    expect(await lookup(true)).toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })]));
  });
});
