import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createS3BlobStore } from '@dossier/adapters';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, sha256, startTestServer, type TestServer, waitFor } from './helpers.ts';

/**
 * Issue 43: a source's file over the 25 MB of a direct upload is streamed into the store and mirrored like a small
 * one (added, unchanged by its stamp, replaced in place when it changes, searchable); one over the server's upload
 * limit (DOSSIER_MAX_UPLOAD_BYTES) is a failed entry saying so. A real folder and a real s3rver bucket.
 */

const MB = 1024 * 1024;
const LARGE = 25 * MB + 4096;
const LIMIT = 26 * MB;
const BUCKET = 'large-files';

/** An HTML page of `size` bytes: one paragraph of text, the rest a script the converter drops (fast to convert). */
function largePage(text: string, size: number): Buffer {
  const head = Buffer.from(`<html><body><h1>Keeper log</h1><p>${text}</p><script>//`);
  const tail = Buffer.from('\n</script></body></html>');
  const page = Buffer.alloc(size, 'x');
  head.copy(page, 0);
  tail.copy(page, size - tail.length);
  return page;
}

let t: TestServer;
let token: string;
let base: string;
let allowed: string;
let s3: S3rver;
let s3dir: string;
let endpoint: string;

const jwt = (method: string, path: string, json?: unknown) => t.request(method, path, { auth: token, ...(json === undefined ? {} : { json }) });
const bucket = () =>
  createS3BlobStore({
    bucket: BUCKET,
    prefix: 'logs/',
    client: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
  });
const search = async (cid: string, q: string): Promise<string[]> =>
  ((await t.request('POST', `/v1/collections/${cid}/query`, { json: { q } })).body as Json[]).map((r) => r.document.id);
const manifestOf = async (cid: string): Promise<Json[]> => (await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries;

async function runToEnd(sourceId: string): Promise<Json> {
  const started = await jwt('POST', `${base}/${sourceId}/runs`, {});
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return waitFor(async () => {
    const run = ((await jwt('GET', `${base}/${sourceId}/runs`)).body as Json[]).find((r) => r.id === started.body.id);
    return run && run.status !== 'running' ? run : null;
  }, 'the source run to end');
}

beforeAll(async () => {
  allowed = mkdtempSync(join(tmpdir(), 'dossier-large-sources-'));
  s3dir = mkdtempSync(join(tmpdir(), 'dossier-large-s3-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  endpoint = `http://127.0.0.1:${((await s3.run()) as AddressInfo).port}`;
  t = await startTestServer({ config: { sourceFolders: [allowed], maxUploadBytes: LIMIT, sourcesAllowPrivateEndpoints: true } });
  token = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  base = `/v1/orgs/${t.orgId}/projects/${t.projectId}/sources`;
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
  rmSync(allowed, { recursive: true, force: true });
  await rm(s3dir, { recursive: true, force: true });
});

/**
 * The life of one large file in a source: `put` writes it (new content each call), `drop` removes the one over the
 * limit. Added (the over-limit one failed), unchanged on a re-run, replaced in place after a change, searchable.
 */
async function mirrorsLargeFile(sourceBody: Json, put: (name: string, bytes: Buffer) => Promise<void>, drop: (name: string) => Promise<void>): Promise<void> {
  const cid = (await t.createCollection()).id;
  const first = largePage('The keeper saw a green flash over the reef.', LARGE);
  await put('keeper.html', first);
  await put('huge.html', largePage('Too large to take.', LIMIT + 1));
  const created = await jwt('POST', base, { collectionId: cid, ...sourceBody });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const sourceId = created.body.id;

  const added = await runToEnd(sourceId);
  expect(added).toMatchObject({ status: 'completed', added: 1, updated: 0, unchanged: 0, failed: 1 });
  expect(added.details.failures).toEqual([
    { path: 'huge.html', error: `The file (${LIMIT + 1} bytes) is larger than this server's upload limit of ${LIMIT} bytes` },
  ]);
  const [entry] = await manifestOf(cid);
  expect(entry).toMatchObject({ path: 'keeper.html', version: 1 });
  const doc = await t.waitDone(entry.documentId);
  expect(doc).toMatchObject({ status: 'ready', fileSizeBytes: LARGE, contentHash: sha256(first) });
  expect(await search(cid, 'green flash reef')).toEqual([entry.documentId]);

  await drop('huge.html');
  expect(await runToEnd(sourceId)).toMatchObject({ status: 'completed', added: 0, updated: 0, unchanged: 1, failed: 0 });

  const second = largePage('A violet comet crossed the bay at dawn.', LARGE + 10);
  await put('keeper.html', second);
  expect(await runToEnd(sourceId)).toMatchObject({ status: 'completed', added: 0, updated: 1, unchanged: 0, failed: 0 });
  const [replaced] = await manifestOf(cid);
  expect(replaced).toMatchObject({ path: 'keeper.html', documentId: entry.documentId, version: 2 });
  expect(await t.waitDone(entry.documentId)).toMatchObject({ status: 'ready', fileSizeBytes: LARGE + 10, contentHash: sha256(second) });
  expect(await search(cid, 'violet comet')).toEqual([entry.documentId]);
  expect(await search(cid, 'green flash reef')).toEqual([]);
  expect((await t.request('GET', `/v1/collections/${cid}/documents`)).body.total).toBe(1);
  expect(t.errors).toEqual([]);
}

describe('a source file over the 25 MB of a direct upload', () => {
  it('from a folder on the server: added, unchanged on a re-run, replaced in place when edited, searchable; over the upload limit a failed entry', async () => {
    const folder = join(allowed, 'logs');
    const write = async (name: string, bytes: Buffer) => writeFileSync(join(folder, name), bytes);
    mkdirSync(folder, { recursive: true });
    await mirrorsLargeFile({ kind: 'folder', path: folder }, write, async (name) => unlinkSync(join(folder, name)));
  }, 180_000);

  it('from an S3 prefix (s3rver): added, unchanged on a re-run by its ETag, replaced in place when changed, searchable; over the upload limit a failed entry', async () => {
    const store = bucket();
    const body = { kind: 's3', endpoint, bucket: BUCKET, prefix: 'logs', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    await mirrorsLargeFile(
      body,
      (name, bytes) => store.put(name, bytes),
      (name) => store.delete(name),
    );
    store.close();
  }, 180_000);
});
