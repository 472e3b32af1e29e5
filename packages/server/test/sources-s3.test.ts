import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createS3BlobStore } from '@dossier/adapters';
import { dossierContext } from '@dossier/core/testing';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer, waitFor } from './helpers.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/** Issue 43: an S3 prefix synced into a collection by the server, against s3rver (a local S3-protocol server). */

let s3: S3rver;
let dir: string;
let endpoint: string;
let t: TestServer;
let token: string;
let receiver: Receiver;
let hookSecret = '';
let base: string;
const BUCKET = 'shared-drive';
const SECRET = 'S3RVER';

const jwt = (method: string, path: string, json?: unknown) => t.request(method, path, { auth: token, ...(json === undefined ? {} : { json }) });
const bucket = (prefix: string) =>
  createS3BlobStore({
    bucket: BUCKET,
    prefix,
    client: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: SECRET } },
  });
const put = (key: string, text: string) => bucket('handbook/').put(key, new TextEncoder().encode(text));

async function runToEnd(sourceId: string, body: Json = {}): Promise<Json> {
  const started = await jwt('POST', `${base}/${sourceId}/runs`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return waitFor(async () => {
    const run = ((await jwt('GET', `${base}/${sourceId}/runs`)).body as Json[]).find((r) => r.id === started.body.id);
    return run && run.status !== 'running' ? run : null;
  }, 'the S3 source run to end');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dossier-s3-source-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  endpoint = `http://127.0.0.1:${((await s3.run()) as AddressInfo).port}`;
  await put('intro.md', '# Intro\n\nWelcome to the lighthouse keepers.');
  await put('policies/leave.md', '# Leave\n\nTwenty days of leave a year.');
  await put('policies/travel.md', '# Travel\n\nTrains before planes.');
  await put('policies/expenses.md', '# Expenses\n\nReceipts within a month.');
  await bucket('elsewhere/').put('outside.md', new TextEncoder().encode('# Outside\n\nNot under the prefix.'));
  t = await startTestServer({ config: { webhooksAllowHttpLoopback: true, webhookRetryBaseMs: 100, sourcesAllowPrivateEndpoints: true } });
  token = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  base = `/v1/orgs/${t.orgId}/projects/${t.projectId}/sources`;
  receiver = await startReceiver(() => hookSecret);
  const hook = await t.request('POST', `/v1/orgs/${t.orgId}/projects/${t.projectId}/webhooks`, {
    json: { url: receiver.url, events: ['source.run.completed'] },
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  hookSecret = hook.body.secret;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('server-side S3 sources', () => {
  let cid = '';
  let sourceId = '';

  it('refuses bad S3 settings', async () => {
    cid = (await t.createCollection()).id;
    const good = { collectionId: cid, kind: 's3', endpoint, bucket: BUCKET, prefix: 'handbook', accessKeyId: 'S3RVER', secretAccessKey: SECRET };
    expectError(await jwt('POST', base, { ...good, bucket: 'Not A Bucket' }), 400, /bucket/);
    expectError(await jwt('POST', base, { ...good, endpoint: 'ftp://example.test' }), 400, /http/);
    expectError(await jwt('POST', base, { ...good, secretAccessKey: undefined }), 400);
    expectError(await jwt('POST', base, { ...good, path: '/srv' }), 400);
  });

  it('adds a source with its credentials sealed: never returned, never stored or logged in the clear', async () => {
    const created = await jwt('POST', base, {
      collectionId: cid,
      kind: 's3',
      endpoint,
      bucket: BUCKET,
      prefix: 'handbook',
      accessKeyId: 'S3RVER',
      secretAccessKey: SECRET,
      maxDeletePercent: 30,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    sourceId = created.body.id;
    expect(created.body).toMatchObject({
      kind: 's3',
      location: `${BUCKET}/handbook/`,
      settings: { bucket: BUCKET, prefix: 'handbook/', endpoint, region: 'us-east-1', forcePathStyle: 'true', accessKeyPreview: '…' },
    });
    for (const res of [created, await jwt('GET', `${base}/${sourceId}`), await jwt('GET', base)]) {
      expect(JSON.stringify(res.body)).not.toMatch(/secretAccessKey|credentials|S3RVER/);
    }
    const stored = await dossierContext(t.server.dossier).store.getSource(sourceId);
    expect(stored?.credentialsEncrypted).toMatch(/^v1:/);
    expect(stored?.credentialsEncrypted).not.toContain(SECRET);
  });

  it('syncs the prefix on demand, then skips unchanged objects by their ETag', async () => {
    const run = await runToEnd(sourceId);
    expect(run).toMatchObject({ status: 'completed', added: 4, updated: 0, deleted: 0, unchanged: 0, failed: 0 });
    const manifest = (await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries as Json[];
    expect(manifest.map((e) => e.path)).toEqual(['intro.md', 'policies/expenses.md', 'policies/leave.md', 'policies/travel.md']);
    expect(manifest.every((e) => /^etag:[0-9a-f]{32}$/.test(e.stamp))).toBe(true);
    for (const e of manifest) await t.waitDone(e.documentId);
    expect(await runToEnd(sourceId)).toMatchObject({ status: 'completed', added: 0, updated: 0, deleted: 0, unchanged: 4 });
  });

  it('replaces changed objects and soft-deletes removed ones, with the completion event', async () => {
    await put('policies/leave.md', '# Leave\n\nTwenty-five days of leave a year, plus the solstice.');
    await bucket('handbook/').delete('policies/travel.md');
    const run = await runToEnd(sourceId);
    expect(run).toMatchObject({ status: 'completed', added: 0, updated: 1, deleted: 1, unchanged: 2 });
    expect(run.details.deletedPaths).toEqual(['policies/travel.md']);
    const leave = ((await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries as Json[]).find((e) => e.path === 'policies/leave.md');
    await t.waitDone(leave.documentId);
    expect((await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'solstice' } })).body[0].document.id).toBe(leave.documentId);
    expect((await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'trains planes' } })).body).toEqual([]);
    const hook = await waitFor(
      async () => receiver.received.find((r) => r.type === 'source.run.completed' && r.body.data.runId === run.id),
      'source.run.completed webhook',
    );
    expect(hook.body.data).toMatchObject({ sourceId, collectionId: cid, status: 'completed', added: 0, updated: 1, deleted: 1, unchanged: 2, failed: 0 });
  });

  it('keeps the safety limit: refuses to delete more than its share without force', async () => {
    for (const key of ['intro.md', 'policies/leave.md']) await bucket('handbook/').delete(key);
    const refused = await runToEnd(sourceId);
    expect(refused).toMatchObject({ status: 'failed', deleted: 0 });
    expect(refused.error).toMatch(/refusing to delete 2 of the collection's 3/);
    expect(await runToEnd(sourceId, { force: true })).toMatchObject({ status: 'completed', deleted: 2, unchanged: 1 });
  });

  it("changes an S3 source's credentials in place: sealed again, never echoed; wrong ones fail the run, right ones sync again", async () => {
    const path = `${base}/${sourceId}`;
    expectError(await jwt('PATCH', path, { accessKeyId: 'AKIAONLYONE' }), 400, /together/);
    const wrong = await jwt('PATCH', path, { accessKeyId: 'AKIAWRONGKEY1', secretAccessKey: 'not-the-secret' });
    expect(wrong.status, JSON.stringify(wrong.body)).toBe(200);
    expect(wrong.body.settings.accessKeyPreview).toBe('AKIA…KEY1');
    expect(JSON.stringify(wrong.body)).not.toMatch(/not-the-secret|secretAccessKey|credentials/);
    const stored = await dossierContext(t.server.dossier).store.getSource(sourceId);
    expect(stored?.credentialsEncrypted).not.toContain('not-the-secret');
    expect((await runToEnd(sourceId)).status).toBe('failed');
    expect((await jwt('PATCH', path, { accessKeyId: 'S3RVER', secretAccessKey: SECRET })).status).toBe(200);
    expect(await runToEnd(sourceId)).toMatchObject({ status: 'completed', failed: 0 });
    expect(JSON.stringify(t.logged)).not.toContain('not-the-secret');
  });

  it('fails a run with wrong credentials, saying why, without the secret', async () => {
    const other = await jwt('POST', base, {
      collectionId: (await t.createCollection()).id,
      kind: 's3',
      endpoint,
      bucket: 'no-such-bucket',
      accessKeyId: 'S3RVER',
      secretAccessKey: SECRET,
    });
    const run = await runToEnd(other.body.id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/bucket/i);
    expect(JSON.stringify(run)).not.toContain(SECRET);
    expect(JSON.stringify(t.logged)).not.toContain(SECRET);
    expect(t.errors).toEqual([]);
  });
});
