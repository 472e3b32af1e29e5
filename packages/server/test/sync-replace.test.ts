import { dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, openSse, sha256, startTestServer, type TestServer, waitFor } from './helpers.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/** Issue 43: a document that came from a source path is replaced in place by new content sent for the same path. */

let t: TestServer;
let receiver: Receiver;
let secret = '';

function sourceForm(files: { path: string; content: string }[]): FormData {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([f.content], { type: 'text/markdown' }), f.path.split('/').pop());
  form.append('sourcePaths', JSON.stringify(files.map((f) => f.path)));
  return form;
}

async function sendBatch(cid: string, files: { path: string; content: string }[]): Promise<Json[]> {
  const res = await t.request('POST', `/v1/collections/${cid}/documents/batch`, { body: sourceForm(files) });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.documents;
}

const search = async (cid: string, q: string) => (await t.request('POST', `/v1/collections/${cid}/query`, { json: { q } })).body as Json[];

beforeAll(async () => {
  t = await startTestServer({ config: { webhooksAllowHttpLoopback: true, webhookRetryBaseMs: 100 } });
  receiver = await startReceiver(() => secret);
  const created = await t.request('POST', `/v1/orgs/${t.orgId}/projects/${t.projectId}/webhooks`, {
    json: { url: receiver.url, events: ['document.updated'] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  secret = created.body.secret;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('replacing a document by its source path', () => {
  it('keeps the id, counts versions, answers with the new content only, and sends document.updated', async () => {
    const c = await t.createCollection();
    const [first] = await sendBatch(c.id, [{ path: 'notes/alpha.md', content: '# Alpha\n\nThe heron nests by the quarry lake.' }]);
    expect(first).toMatchObject({ sourcePath: 'notes/alpha.md', version: 1, filename: 'alpha.md' });
    await t.waitDone(first.id);
    expect((await search(c.id, 'heron quarry')).map((r) => r.document.id)).toEqual([first.id]);

    const events = await openSse(`${t.url}/v1/collections/${c.id}/documents/events`, { authorization: `Bearer ${t.liveKey}` });
    const [second] = await sendBatch(c.id, [{ path: 'notes/alpha.md', content: '# Alpha\n\nThe kingfisher dives in the mill pond.' }]);
    expect(second).toMatchObject({ id: first.id, version: 2, status: 'uploading', contentHash: sha256('# Alpha\n\nThe kingfisher dives in the mill pond.') });
    const done = await t.waitDone(first.id);
    expect(done).toMatchObject({ status: 'ready', version: 2 });
    await events.next((m) => m.documentId === first.id && m.status === 'ready' && m.version === 2);
    events.close();

    expect((await search(c.id, 'kingfisher mill')).map((r) => r.document.id)).toEqual([first.id]);
    expect(await search(c.id, 'heron quarry')).toEqual([]);
    const list = await t.request('GET', `/v1/collections/${c.id}/documents`);
    expect(list.body.total).toBe(1);

    const hook = await waitFor(
      async () => receiver.received.find((r) => r.type === 'document.updated' && r.body.data.documentId === first.id),
      'document.updated webhook',
    );
    expect(hook.signatureValid).toBe(true);
    expect(hook.body.data).toMatchObject({ collectionId: c.id, version: 2, sourcePath: 'notes/alpha.md' });
  });

  it('leaves a document alone when the same content comes again for its path', async () => {
    const c = await t.createCollection();
    const [doc] = await sendBatch(c.id, [{ path: 'same.md', content: '# Same\n\nUnchanged text.' }]);
    await t.waitDone(doc.id);
    const [again] = await sendBatch(c.id, [{ path: './same.md', content: '# Same\n\nUnchanged text.' }]);
    expect(again).toMatchObject({ id: doc.id, version: 1, status: 'ready' });
  });

  it('lists the manifest by path, a page at a time', async () => {
    const c = await t.createCollection();
    const files = ['b/2.md', 'a/1.md', 'c.md'].map((path) => ({ path, content: `# ${path}\n\ntext of ${path}` }));
    const docs = await sendBatch(c.id, files);
    await t.upload(c.id, 'loose.md', '# Loose\n\nuploaded without a path');
    const page1 = await t.request('GET', `/v1/collections/${c.id}/manifest?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.entries.map((e: Json) => e.path)).toEqual(['a/1.md', 'b/2.md']);
    expect(page1.body.nextCursor).toBe('b/2.md');
    expect(page1.body.entries[0]).toMatchObject({ documentId: docs[1].id, hash: sha256(files[1]!.content), version: 1 });
    const page2 = await t.request('GET', `/v1/collections/${c.id}/manifest?limit=2&after=${encodeURIComponent('b/2.md')}`);
    expect(page2.body).toMatchObject({ entries: [{ path: 'c.md', documentId: docs[2].id }], nextCursor: null });
  });

  it('leaves no row of the previous content behind when the new one has fewer sections', async () => {
    const c = await t.createCollection();
    const three = '# Heron\n\nThe heron nests by the quarry.\n\n# Osprey\n\nThe osprey fishes the reservoir.\n\n# Bittern\n\nThe bittern booms in the reeds.';
    const [doc] = await sendBatch(c.id, [{ path: 'birds.md', content: three }]);
    await t.waitDone(doc.id);
    const before = (await t.request('GET', `/v1/documents/${doc.id}/sections`)).body as Json[];
    expect(before.map((s) => s.title)).toEqual(['Heron', 'Osprey', 'Bittern']);
    const ctx = dossierContext(t.server.dossier);
    const stale = before[2]!;
    const claim = {
      id: crypto.randomUUID(),
      collectionId: c.id,
      documentId: doc.id,
      sectionId: stale.id,
      sectionTitle: 'Bittern',
      text: 'The bittern booms.',
      sourceText: null,
      importance: 3,
      position: 0,
      createdAt: new Date().toISOString(),
    };
    await ctx.store.replaceDocumentClaims(doc.id, [claim]);
    await ctx.store.putFingerprints([{ documentId: doc.id, collectionId: c.id, shingleCount: 3, fingerprints: [11, 12, 13] }]);

    await sendBatch(c.id, [{ path: 'birds.md', content: '# Wren\n\nThe wren sings in the hedge.' }]);
    expect(await t.waitDone(doc.id)).toMatchObject({ status: 'ready', version: 2, sectionCount: 1 });
    const after = (await t.request('GET', `/v1/documents/${doc.id}/sections`)).body as Json[];
    expect(after.map((s) => s.title)).toEqual(['Wren']);
    expectError(await t.request('GET', `/v1/sections/${stale.id}`), 404);
    const scan = await t.request('POST', `/v1/collections/${c.id}/sections/scan`, { json: { query: 'bittern osprey heron' } });
    expect(scan.status).toBe(200);
    expect(scan.body.results).toEqual([]);
    expect(await ctx.index.countChunks(c.id, doc.id)).toBe(1);
    expect(await search(c.id, 'bittern reeds')).toEqual([]);
    expect(await ctx.store.listDocumentClaims(doc.id, 1)).toEqual([]);
    expect(await ctx.store.claimCounts(c.id)).toEqual({ documents: 0, claims: 0 });
    expect(await ctx.store.fingerprintedDocuments(c.id)).toEqual([]);
  });

  it('answers 404 for a soft-deleted document and leaves it out of lists, search and scan', async () => {
    const c = await t.createCollection();
    const [gone, kept] = await sendBatch(c.id, [
      { path: 'gone.md', content: '# Gannet\n\nThe gannet dives off the cliffs.' },
      { path: 'kept.md', content: '# Puffin\n\nThe puffin carries sand eels.' },
    ]);
    for (const d of [gone, kept]) await t.waitDone(d.id);
    const sections = (await t.request('GET', `/v1/documents/${gone.id}/sections`)).body as Json[];
    const deleted = await t.request('POST', `/v1/collections/${c.id}/manifest/delete`, { json: { paths: ['gone.md'] } });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body.deleted).toEqual([{ path: 'gone.md', documentId: gone.id }]);
    for (const path of [
      `/v1/documents/${gone.id}`,
      `/v1/documents/${gone.id}/sections`,
      `/v1/documents/${gone.id}/markdown`,
      `/v1/sections/${sections[0].id}`,
    ]) {
      expectError(await t.request('GET', path), 404);
    }
    const list = (await t.request('GET', `/v1/collections/${c.id}/documents`)).body;
    expect({ total: list.total, ids: list.documents.map((d: Json) => d.id) }).toEqual({ total: 1, ids: [kept.id] });
    const stats = (await t.request('GET', `/v1/collections/${c.id}/stats`)).body;
    expect({ docCount: stats.docCount, statusCounts: stats.statusCounts }).toEqual({ docCount: 1, statusCounts: { ready: 1 } });
    expect(await search(c.id, 'gannet cliffs')).toEqual([]);
    const scan = await t.request('POST', `/v1/collections/${c.id}/sections/scan`, { json: { query: 'gannet' } });
    expect(scan.body.results).toEqual([]);
    expect((await t.request('GET', `/v1/collections/${c.id}/manifest`)).body.entries.map((e: Json) => e.path)).toEqual(['kept.md']);
  });

  it('refuses bad source paths and a count that does not match the files', async () => {
    const c = await t.createCollection();
    const bad = sourceForm([{ path: '../etc/passwd', content: 'x' }]);
    expectError(await t.request('POST', `/v1/collections/${c.id}/documents/batch`, { body: bad }), 400, /sourcePath/);
    const form = sourceForm([{ path: 'a.md', content: 'a' }]);
    form.set('sourcePaths', JSON.stringify(['a.md', 'b.md']));
    expectError(await t.request('POST', `/v1/collections/${c.id}/documents/batch`, { body: form }), 400, /sourcePaths/);
    const notJson = sourceForm([{ path: 'a.md', content: 'a' }]);
    notJson.set('sourcePaths', '{');
    expectError(await t.request('POST', `/v1/collections/${c.id}/documents/batch`, { body: notJson }), 400, /sourcePaths/);
    expectError(await t.request('GET', `/v1/collections/${c.id}/manifest?limit=0`), 400);
    expectError(await t.request('GET', `/v1/collections/${c.id}/manifest`, { auth: null }), 401);
    expect(t.errors).toEqual([]);
  });
});
