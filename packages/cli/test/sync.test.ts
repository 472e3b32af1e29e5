import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, syncFolder } from '../src/index.ts';
import { dossier, ndjson, startTestServer, type TestServer, tempHome } from './helpers.ts';

/** Issue 43: `dossier sync` mirrors a folder into a collection (real server, SQLite, real files). */
let t: TestServer;
let folder: string;
let env: Record<string, string>;
const { home, cleanup } = tempHome();

const write = (rel: string, text: string) => {
  mkdirSync(join(folder, rel, '..'), { recursive: true });
  writeFileSync(join(folder, rel), text);
};
const sync = (args: string[]) => dossier(home, ['sync', folder, ...args, '--json'], { env });
const summaryOf = (stdout: string) => ndjson(stdout).find((e) => e.type === 'summary');
const manifestOf = async (cid: string) =>
  (await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries as { path: string; documentId: string; version: number }[];
const allReady = async (cid: string) => {
  for (const e of await manifestOf(cid)) await t.waitDone(e.documentId);
};

beforeAll(async () => {
  t = await startTestServer();
  folder = mkdtempSync(join(tmpdir(), 'dossier-sync-'));
  env = { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey };
  write('guide/install.md', '# Install\n\nRun the installer with the blue button.');
  write('guide/usage.md', '# Usage\n\nOpen the lantern menu to begin.');
  write('faq.md', '# FAQ\n\nThe answer is forty-two.');
  write('scratch.tmp', 'not to be synced');
  write('drafts/idea.md', '# Idea\n\nnot to be synced either');
  write('.dossierignore', '*.tmp\ndrafts/\n');
});
afterAll(async () => {
  await t.close();
  rmSync(folder, { recursive: true, force: true });
  cleanup();
});

describe('dossier sync', () => {
  let cid = '';

  it('prints the plan with --dry-run and changes nothing', async () => {
    cid = (await t.createCollection()).id;
    const r = await sync(['-c', cid, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toEqual([
      { type: 'plan', add: ['faq.md', 'guide/install.md', 'guide/usage.md'], replace: [], delete: [], unchanged: 0, dryRun: true },
    ]);
    expect(await manifestOf(cid)).toEqual([]);
  });

  it('uploads the folder, then a second run finds nothing to do', async () => {
    const first = await sync([cid]);
    expect(first.code, first.stderr).toBe(0);
    expect(summaryOf(first.stdout)).toMatchObject({ added: 3, updated: 0, deleted: 0, unchanged: 0, failed: 0 });
    expect((await manifestOf(cid)).map((e) => e.path)).toEqual(['faq.md', 'guide/install.md', 'guide/usage.md']);
    await allReady(cid);
    const again = await sync(['-c', cid]);
    expect(summaryOf(again.stdout)).toMatchObject({ added: 0, updated: 0, deleted: 0, unchanged: 3, failed: 0 });
  });

  it('replaces a changed file in place and adds a new one; deletes only with --delete', async () => {
    const before = await manifestOf(cid);
    write('guide/usage.md', '# Usage\n\nOpen the compass menu to begin.');
    write('changelog.md', '# Changelog\n\nVersion two adds the compass.');
    unlinkSync(join(folder, 'faq.md'));
    const r = await sync(['-c', cid]);
    expect(summaryOf(r.stdout)).toMatchObject({ added: 1, updated: 1, deleted: 0, unchanged: 1 });
    const replaced = ndjson(r.stdout).find((e) => e.type === 'replaced');
    expect(replaced).toMatchObject({ path: 'guide/usage.md', documentId: before.find((e) => e.path === 'guide/usage.md')!.documentId, version: 2 });
    await allReady(cid);
    const hits = (await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'compass menu' } })).body;
    expect(hits[0].document.id).toBe(replaced!.documentId);
    expect((await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'lantern' } })).body).toEqual([]);
  });

  it('refuses to delete more than the allowed share without --force, then deletes', async () => {
    const refused = await sync(['-c', cid, '--delete']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to delete 1 of the collection's 4 synced documents/);
    expect((await manifestOf(cid)).map((e) => e.path)).toContain('faq.md');
    const done = await sync(['-c', cid, '--delete', '--max-delete', '30']);
    expect(summaryOf(done.stdout)).toMatchObject({ deleted: 1, unchanged: 3 });
    expect((await manifestOf(cid)).map((e) => e.path)).toEqual(['changelog.md', 'guide/install.md', 'guide/usage.md']);
    // Deleted softly: gone from the list and from search at once, purged after the grace period.
    expect((await t.request('GET', `/v1/collections/${cid}/documents`)).body.total).toBe(3);
    const hits = (await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'answer' } })).body;
    expect(hits.map((h: { document: { filename: string } }) => h.document.filename)).not.toContain('faq.md');
  });

  it('refuses a missing folder and a bad --max-delete', async () => {
    expect((await dossier(home, ['sync', join(folder, 'nope'), '-c', cid], { env })).code).toBe(2);
    expect((await sync(['-c', cid, '--max-delete', '150'])).code).toBe(2);
  });
});

describe('syncFolder (library)', () => {
  it('resumes an interrupted sync without sending anything twice, and refuses to empty a collection', async () => {
    const cid = (await t.createCollection()).id;
    const lib = mkdtempSync(join(tmpdir(), 'dossier-sync-lib-'));
    for (let i = 0; i < 250; i++) writeFileSync(join(lib, `n${String(i).padStart(3, '0')}.txt`), `note ${i} about topic ${i % 7}`);
    const api = new ApiClient(`${t.url}/v1`, t.liveKey);
    let requests = 0;
    // The run stops after its first batch of 100 files (the network went away).
    const interrupted = syncFolder({
      api,
      collection: cid,
      folder: lib,
      concurrency: 1,
      attempt: async (request) => {
        if (++requests > 1) throw new Error('connection lost');
        return request();
      },
    });
    await expect(interrupted).rejects.toThrow(/connection lost/);
    expect(await manifestOf(cid)).toHaveLength(100);
    const resumed = await syncFolder({ api, collection: cid, folder: lib });
    expect(resumed).toMatchObject({ added: 150, replaced: 0, unchanged: 100, failed: 0 });
    expect(await manifestOf(cid)).toHaveLength(250);
    const empty = mkdtempSync(join(tmpdir(), 'dossier-sync-empty-'));
    await expect(syncFolder({ api, collection: cid, folder: empty, delete: true })).rejects.toThrow(/refusing to delete 250/);
    expect(await manifestOf(cid)).toHaveLength(250);
    rmSync(lib, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  });

  it('sends files over the direct limit the presigned way, adding and replacing them in place', async () => {
    const cid = (await t.createCollection()).id;
    const lib = mkdtempSync(join(tmpdir(), 'dossier-sync-large-'));
    writeFileSync(join(lib, 'small.md'), '# S\n\ntiny');
    writeFileSync(join(lib, 'big.md'), '# Big\n\nThe albatross glides over the southern ocean for days.');
    const api = new ApiClient(`${t.url}/v1`, t.liveKey);
    const paths: string[] = [];
    // The direct limit lowered to 32 bytes (25 MB in use), so big.md takes the path a 30 MB file would.
    const attempt = <T>(request: () => Promise<T>) => request();
    const spy = { ...api, send: api.send.bind(api), json: api.json.bind(api) } as ApiClient;
    spy.json = async <T>(method: string, path: string, opts?: Parameters<ApiClient['json']>[2]) => {
      paths.push(`${method} ${path.replace(/[0-9a-f-]{36}/g, ':id')}`);
      return api.json<T>(method, path, opts);
    };
    const first = await syncFolder({ api: spy, collection: cid, folder: lib, directMaxBytes: 32, attempt });
    expect(first).toMatchObject({ added: 2, replaced: 0, failed: 0 });
    expect(paths).toContain('POST /collections/:id/documents/upload-url');
    expect(paths).toContain('POST /collections/:id/documents/:id/confirm');
    await allReady(cid);
    const big = (await manifestOf(cid)).find((e) => e.path === 'big.md')!;
    writeFileSync(join(lib, 'big.md'), '# Big\n\nThe petrel skims the waves of the northern sea instead.');
    const second = await syncFolder({ api: spy, collection: cid, folder: lib, directMaxBytes: 32, attempt });
    expect(second).toMatchObject({ added: 0, replaced: 1, unchanged: 1, failed: 0 });
    const after = await manifestOf(cid);
    expect(after.map((e) => e.path)).toEqual(['big.md', 'small.md']);
    expect(after.find((e) => e.path === 'big.md')).toMatchObject({ documentId: big.documentId, version: 2 });
    await t.waitDone(big.documentId);
    const hits = (await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'petrel northern' } })).body as { document: { id: string } }[];
    expect(hits.map((h) => h.document.id)).toEqual([big.documentId]);
    expect((await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'albatross' } })).body).toEqual([]);
    expect((await t.request('GET', `/v1/collections/${cid}/documents`)).body.total).toBe(2);
    rmSync(lib, { recursive: true, force: true });
  });
});
