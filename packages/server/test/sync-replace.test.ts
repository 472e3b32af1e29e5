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
  const created = await t.request('POST', `/v1/orgs/${t.orgId}/projects/${t.projectId}/webhooks`, { json: { url: receiver.url, events: ['document.updated'] } });
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

    const hook = await waitFor(async () => receiver.received.find((r) => r.type === 'document.updated' && r.body.data.documentId === first.id), 'document.updated webhook');
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
