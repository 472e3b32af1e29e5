import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer, waitFor } from './helpers.ts';

/** Issue 43: a folder on the server's disk synced into a collection by the server (real files, SQLite). */
let t: TestServer;
let token: string;
let base: string;
let allowed: string;
let folder: string;

const jwt = (method: string, path: string, json?: unknown) => t.request(method, path, { auth: token, ...(json === undefined ? {} : { json }) });
const write = (rel: string, text: string) => {
  mkdirSync(join(folder, rel, '..'), { recursive: true });
  writeFileSync(join(folder, rel), text);
};

async function runToEnd(sourceId: string, body: Json = {}): Promise<Json> {
  const started = await jwt('POST', `${base}/${sourceId}/runs`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body.status).toBe('running');
  return waitFor(async () => {
    const runs = (await jwt('GET', `${base}/${sourceId}/runs`)).body as Json[];
    const run = runs.find((r) => r.id === started.body.id);
    return run && run.status !== 'running' ? run : null;
  }, 'the source run to end');
}

beforeAll(async () => {
  allowed = mkdtempSync(join(tmpdir(), 'dossier-sources-'));
  folder = join(allowed, 'handbook');
  write('intro.md', '# Intro\n\nWelcome aboard the lighthouse.');
  write('policies/leave.md', '# Leave\n\nTwenty days of leave a year.');
  write('policies/travel.md', '# Travel\n\nTrains before planes.');
  write('policies/expenses.md', '# Expenses\n\nReceipts within a month.');
  write('.hidden.md', 'skipped');
  t = await startTestServer({ config: { sourceFolders: [allowed] } });
  token = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  base = `/v1/orgs/${t.orgId}/projects/${t.projectId}/sources`;
});
afterAll(async () => {
  await t?.close();
  rmSync(allowed, { recursive: true, force: true });
});

describe('server-side folder sources', () => {
  let cid = '';
  let sourceId = '';

  it('refuses folders outside the allowed ones and bad input', async () => {
    cid = (await t.createCollection()).id;
    expectError(await jwt('POST', base, { collectionId: cid, kind: 'folder', path: '/etc' }), 400, /not inside a folder/);
    expectError(await jwt('POST', base, { collectionId: cid, kind: 'folder', path: `${allowed}/../..` }), 400, /not inside a folder/);
    expectError(await jwt('POST', base, { collectionId: cid, kind: 'folder', path: 'relative/path' }), 400, /absolute/);
    expectError(await jwt('POST', base, { collectionId: cid, kind: 'ftp', path: folder }), 400);
    expectError(await jwt('POST', base, { collectionId: crypto.randomUUID(), kind: 'folder', path: folder }), 404);
    expectError(await t.request('POST', base, { json: { collectionId: cid, kind: 'folder', path: folder } }), 401);
  });

  it('adds a source and syncs it on demand, counting what it did', async () => {
    const created = await jwt('POST', base, { collectionId: cid, kind: 'folder', path: folder, maxDeletePercent: 30 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ collectionId: cid, kind: 'folder', location: folder, intervalMinutes: null, maxDeleteShare: 0.3, paused: false });
    sourceId = created.body.id;
    expect((await jwt('GET', base)).body.map((s: Json) => s.id)).toEqual([sourceId]);
    const run = await runToEnd(sourceId);
    expect(run).toMatchObject({ status: 'completed', added: 4, updated: 0, deleted: 0, unchanged: 0, failed: 0, trigger: 'manual' });
    const manifest = (await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries as Json[];
    expect(manifest.map((e) => e.path)).toEqual(['intro.md', 'policies/expenses.md', 'policies/leave.md', 'policies/travel.md']);
    expect(manifest.every((e) => /^\d+:\d+$/.test(e.stamp))).toBe(true);
    for (const e of manifest) await t.waitDone(e.documentId);
    const again = await runToEnd(sourceId);
    expect(again).toMatchObject({ status: 'completed', added: 0, updated: 0, deleted: 0, unchanged: 4 });
  });

  it('replaces edited files, soft-deletes removed ones, and hides them from search at once', async () => {
    write('policies/leave.md', '# Leave\n\nTwenty-five days of leave a year, plus the solstice.');
    unlinkSync(join(folder, 'policies', 'travel.md'));
    const run = await runToEnd(sourceId);
    expect(run).toMatchObject({ status: 'completed', added: 0, updated: 1, deleted: 1, unchanged: 2 });
    expect(run.details.deletedPaths).toEqual(['policies/travel.md']);
    expect(Date.parse(run.details.purgeAfter)).toBeGreaterThan(Date.now());
    const manifest = (await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries as Json[];
    expect(manifest.map((e) => e.path)).not.toContain('policies/travel.md');
    const leave = manifest.find((e) => e.path === 'policies/leave.md');
    expect(leave.version).toBe(2);
    await t.waitDone(leave.documentId);
    expect((await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'trains planes' } })).body).toEqual([]);
    expect((await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'solstice' } })).body[0].document.id).toBe(leave.documentId);
    expect((await t.request('GET', `/v1/collections/${cid}/documents`)).body.total).toBe(3);
  });

  it('fails a run that would delete more than its share, then deletes with force', async () => {
    for (const f of ['intro.md', 'policies/leave.md']) unlinkSync(join(folder, f));
    const refused = await runToEnd(sourceId);
    expect(refused).toMatchObject({ status: 'failed', deleted: 0 });
    expect(refused.error).toMatch(/refusing to delete 2 of the collection's 3/);
    expect((await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries).toHaveLength(3);
    const forced = await runToEnd(sourceId, { force: true });
    expect(forced).toMatchObject({ status: 'completed', deleted: 2, unchanged: 1 });
  });

  it('purges soft-deleted documents once their grace period is over', async () => {
    const store = dossierContext(t.server.dossier).store;
    const manifestIds = new Set(((await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries as Json[]).map((e) => e.documentId));
    const softly = (await store.listSoftDeletedDocuments('9999-01-01T00:00:00.000Z', 100)).filter((d) => d.collectionId === cid);
    expect(softly).toHaveLength(3);
    for (const d of softly) await store.updateDocument(d.id, { deletedAt: '2000-01-01T00:00:00.000Z' });
    await runToEnd(sourceId);
    for (const d of softly) expect(await store.getDocument(d.id)).toBeNull();
    expect(manifestIds.size).toBe(1);
  });

  it('refuses S3 sources whose endpoint is a private, loopback or link-local address (the server does not allow private endpoints)', async () => {
    const s3 = { collectionId: cid, kind: 's3', bucket: 'team-docs', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' };
    for (const endpoint of ['http://127.0.0.1:9000', 'http://10.0.0.5:9000', 'http://localhost:9000', 'http://[::1]:9000']) {
      expectError(await jwt('POST', base, { ...s3, endpoint }), 400, /endpoint: this server does not reach it .*DOSSIER_SOURCES_ALLOW_PRIVATE_ENDPOINTS/);
    }
    expectError(await jwt('POST', base, { ...s3, endpoint: 'http://169.254.169.254/' }), 400, /linkLocal/);
    expect((await jwt('GET', base)).body.map((src: Json) => src.kind)).toEqual(['folder']);
  });

  it('fails the run of an S3 source saved with a private endpoint once the server refuses them, before any request', async () => {
    const ctx = dossierContext(t.server.dossier);
    const now = new Date().toISOString();
    const id = crypto.randomUUID();
    const credentialsEncrypted = ctx.secrets.encrypt(JSON.stringify({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' }));
    const settings = { bucket: 'team-docs', prefix: '', region: 'us-east-1', forcePathStyle: 'true', endpoint: 'http://127.0.0.1:9' };
    await ctx.store.insertSource({
      id,
      collectionId: (await t.createCollection()).id,
      kind: 's3',
      location: 'team-docs/',
      settings,
      credentialsEncrypted,
      intervalMinutes: null,
      maxDeleteShare: 0.2,
      paused: false,
      nextRunAt: null,
      createdAt: now,
      updatedAt: now,
    });
    const run = await runToEnd(id);
    expect(run).toMatchObject({ status: 'failed', added: 0 });
    expect(run.error).toMatch(/S3 endpoint http:\/\/127\.0\.0\.1:9 is refused: 127\.0\.0\.1 is a loopback address/);
    expect((await jwt('DELETE', `${base}/${id}`)).status).toBe(204);
  });

  it('pauses, lists runs to members, and removes the source', async () => {
    const paused = await jwt('PATCH', `${base}/${sourceId}`, { paused: true, intervalMinutes: 60 });
    expect(paused.body).toMatchObject({ paused: true, intervalMinutes: 60 });
    expectError(await jwt('PATCH', `${base}/${sourceId}`, { intervalMinutes: 1 }), 400);
    expect((await jwt('GET', `${base}/${sourceId}/runs`)).body.length).toBeGreaterThanOrEqual(5);
    expect((await jwt('DELETE', `${base}/${sourceId}`)).status).toBe(204);
    expectError(await jwt('GET', `${base}/${sourceId}`), 404);
    expect(t.errors).toEqual([]);
  });
});
