import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadTokens } from '../../core/src/documents/upload-token.ts';
import { type Doc, expectError, INGEST_TIMEOUT_MS, sha256, startTestServer, storedUnder, type TestServer } from './helpers.ts';
import { dossierContext } from '@dossier/core/testing';

let t: TestServer;
let cid: string;
beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Uploads' })).id;
});
afterAll(async () => {
  await t?.close();
});

const uploadUrl = (json: Record<string, unknown>, collectionId = cid) => t.request('POST', `/v1/collections/${collectionId}/documents/upload-url`, { json });

/** PUT bytes to a presigned URL (no Authorization: the URL itself authorises the request). */
const put = async (url: string, bytes: string | Uint8Array) => {
  const res = await fetch(url, {
    method: 'PUT',
    body: bytes,
    headers: { 'content-type': 'application/octet-stream' },
    signal: AbortSignal.timeout(INGEST_TIMEOUT_MS),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text };
};

const confirm = (docId: string, json?: Record<string, unknown>) =>
  t.request<Doc>('POST', `/v1/collections/${cid}/documents/${docId}/confirm`, json ? { json } : {});

describe('presigned upload: upload-url, PUT, confirm', () => {
  it('creates a pending document and a URL on this server (201), which takes the bytes; confirm starts the pipeline', async () => {
    const text = '# Presigned\n\nUploaded through a presigned URL.\n';
    const res = await uploadUrl({
      filename: 'presigned.md',
      contentType: 'text/markdown',
      fileSizeBytes: Buffer.byteLength(text),
      tags: ['Direct', 'direct'],
      metadata: { via: 'url' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['documentId', 'uploadUrl']);
    expect(res.body.uploadUrl.startsWith(`${t.url}/v1/uploads/`)).toBe(true);
    const { documentId } = res.body;

    const pending = (await t.request<Doc>('GET', `/v1/documents/${documentId}`)).body;
    expect(pending).toMatchObject({ id: documentId, status: 'pending', filename: 'presigned.md', tags: ['direct'], metadata: { via: 'url' } });

    const stored = await put(res.body.uploadUrl, text);
    expect(stored.status).toBe(200);
    expect((await t.request<Doc>('GET', `/v1/documents/${documentId}`)).body.status).toBe('pending');

    const confirmed = await confirm(documentId);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ id: documentId, status: 'uploading', fileSizeBytes: Buffer.byteLength(text), contentHash: sha256(text) });
    const done = await t.waitDone(documentId);
    expect(done).toMatchObject({ status: 'ready', sectionCount: 1, tags: ['direct'], metadata: { via: 'url' } });
    expect((await t.request('GET', `/v1/documents/${documentId}/markdown`)).body).toContain('presigned URL');
  });

  it('lets confirm override tags and metadata', async () => {
    const res = await uploadUrl({ filename: 'override.md', tags: ['before'], metadata: { a: 1 } });
    expect((await put(res.body.uploadUrl, '# O\n\noverride\n')).status).toBe(200);
    const confirmed = await confirm(res.body.documentId, { tags: ['After', 'after'], metadata: { b: 2 } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ tags: ['after'], metadata: { b: 2 } });
  });

  it('answers 400 to a confirm that comes before the file was PUT, and the document stays pending', async () => {
    const res = await uploadUrl({ filename: 'early.md' });
    expectError(await confirm(res.body.documentId), 400, /not been uploaded/);
    expect((await t.request('GET', `/v1/documents/${res.body.documentId}`)).body.status).toBe('pending');
  });

  it('treats a second confirm as a no-op and refuses a second PUT with 409', async () => {
    const res = await uploadUrl({ filename: 'twice.md' });
    expect((await put(res.body.uploadUrl, '# T\n\ntwice\n')).status).toBe(200);
    expect((await confirm(res.body.documentId)).status).toBe(200);
    const again = await confirm(res.body.documentId);
    expect(again.status).toBe(200);
    expect(again.body.status).not.toBe('pending');
    const second = await put(res.body.uploadUrl, 'other bytes');
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ error: expect.stringMatching(/already confirmed/) });
    expect((await t.waitDone(res.body.documentId)).status).toBe('ready');
  });

  it('answers 200 with uploadUrl null and the existing document when the contentHash is already stored', async () => {
    const text = '# Known\n\nThese bytes are already stored.\n';
    const first = await uploadUrl({ filename: 'known.md', contentHash: sha256(text) });
    expect(first.status).toBe(201);
    await put(first.body.uploadUrl, text);
    await confirm(first.body.documentId);
    const existing = await t.waitDone(first.body.documentId);

    const hit = await uploadUrl({ filename: 'known-again.md', contentHash: sha256(text).toUpperCase().replace('SHA256', 'sha256') });
    expect(hit.status).toBe(200);
    expect(hit.body).toEqual({ documentId: existing.id, uploadUrl: null, document: existing });
    const list = (await t.request('GET', `/v1/collections/${cid}/documents`)).body.documents as Doc[];
    expect(list.filter((d) => d.filename === 'known-again.md')).toEqual([]);
  });

  it('rejects a malformed contentHash with 400', async () => {
    expectError(await uploadUrl({ filename: 'x.md', contentHash: 'md5:abc' }), 400, /contentHash/);
  });

  it('answers 401 to a PUT with a tampered or made-up token and stores nothing', async () => {
    const res = await uploadUrl({ filename: 'tamper.md' });
    const url: string = res.body.uploadUrl;
    const last = url.at(-1) === 'A' ? 'B' : 'A';
    const tampered = await put(`${url.slice(0, -1)}${last}`, 'evil');
    expect(tampered.status).toBe(401);
    expect(tampered.body).toEqual({ error: 'Invalid upload URL' });
    const otherDoc = url.replace(res.body.documentId, crypto.randomUUID());
    expect((await put(otherDoc, 'evil')).status).toBe(401);
    expect((await put(`${t.url}/v1/uploads/garbage`, 'evil')).status).toBe(401);
    expect(await storedUnder(t.dataDir, join(t.dataDir, 'blobs', 'live', t.projectId, cid, res.body.documentId))).toEqual([]);
    expectError(await confirm(res.body.documentId), 400, /not been uploaded/);
  });
});

describe('presigned URL lifetime', () => {
  it('signs URLs that expire 15 minutes after they are issued', async () => {
    const before = Date.now();
    const res = await uploadUrl({ filename: 'lifetime.md' });
    const [id, expiry] = (res.body.uploadUrl as string).split('/').at(-1)!.split('.');
    expect(id).toBe(res.body.documentId);
    expect(Number(expiry)).toBeGreaterThanOrEqual(before + 15 * 60_000);
    expect(Number(expiry)).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
  });

  it('answers 403 to a PUT on an expired URL', async () => {
    const res = await uploadUrl({ filename: 'expired.md' });
    const tokens = uploadTokens(dossierContext(t.server.dossier).secrets.deriveKey('upload-url'));
    const expired = tokens.sign(res.body.documentId, Date.now() - 16 * 60_000);
    const put403 = await put(`${t.url}/v1/uploads/${expired}`, '# late');
    expect(put403.status).toBe(403);
    expect(put403.body).toEqual({ error: expect.stringMatching(/expired/) });
    expect((await put(res.body.uploadUrl, '# in time\n\nok\n')).status).toBe(200);
  });

  it('does not answer a content-hash hit from another collection', async () => {
    const text = '# Elsewhere\n\nstored in the other collection\n';
    const other = (await t.createCollection({ name: 'Other uploads' })).id;
    await t.ingest(other, 'elsewhere.md', text);
    const res = await uploadUrl({ filename: 'elsewhere.md', contentHash: sha256(text) });
    expect(res.status).toBe(201);
    expect(res.body.uploadUrl).toEqual(expect.any(String));
  });
});

describe('POST /v1/collections/:id/documents/batch-confirm', () => {
  it('confirms several uploaded documents at once', async () => {
    const ids: string[] = [];
    for (const n of ['b1', 'b2', 'b3']) {
      const res = await uploadUrl({ filename: `${n}.md` });
      expect((await put(res.body.uploadUrl, `# ${n}\n\nbatch ${n}\n`)).status).toBe(200);
      ids.push(res.body.documentId);
    }
    const res = await t.request<Doc[]>('POST', `/v1/collections/${cid}/documents/batch-confirm`, { json: { documentIds: ids } });
    expect(res.status).toBe(200);
    expect(res.body.map((d) => [d.id, d.status])).toEqual(ids.map((id) => [id, 'uploading']));
    for (const id of ids) expect((await t.waitDone(id)).status).toBe('ready');
  });

  it('takes 1 to 500 ids: 0 and 501 answer 400', async () => {
    const confirmMany = (documentIds: string[]) => t.request('POST', `/v1/collections/${cid}/documents/batch-confirm`, { json: { documentIds } });
    expectError(await confirmMany([]), 400, /documentIds/);
    expectError(await confirmMany(Array.from({ length: 501 }, () => crypto.randomUUID())), 400, /documentIds/);
    expectError(await confirmMany(['not-a-uuid']), 400, /documentIds/);
    expectError(await confirmMany([crypto.randomUUID()]), 404, /not found/);
  });

  it('confirms nothing when one of the documents has no file yet', async () => {
    const ok = await uploadUrl({ filename: 'ok.md' });
    await put(ok.body.uploadUrl, '# ok\n\nok\n');
    const missing = await uploadUrl({ filename: 'missing.md' });
    const res = await t.request('POST', `/v1/collections/${cid}/documents/batch-confirm`, {
      json: { documentIds: [missing.body.documentId, ok.body.documentId] },
    });
    expectError(res, 400, /not been uploaded/);
    expect((await t.request('GET', `/v1/documents/${ok.body.documentId}`)).body.status).toBe('pending');
  });
});

describe('POST /v1/collections/:id/documents/batch (multipart, several files)', () => {
  it('accepts several files with shared tags and metadata and ingests each', async () => {
    const form = new FormData();
    const names = ['one.md', 'two.txt', 'three.html'];
    form.append('file', new Blob(['# One\n\nfirst file\n']), names[0]);
    form.append('file', new Blob(['second file, plain text\n']), names[1]);
    form.append('file', new Blob(['<html><body><h1>Three</h1><p>third file</p></body></html>']), names[2]);
    form.append('tags', JSON.stringify(['Batch']));
    form.append('metadata', JSON.stringify({ lot: 7 }));
    const res = await t.request('POST', `/v1/collections/${cid}/documents/batch`, { body: form });
    expect(res.status).toBe(202);
    const docs = res.body.documents as Doc[];
    expect(docs.map((d) => d.filename)).toEqual(names);
    for (const d of docs) {
      expect(d).toMatchObject({ collectionId: cid, status: 'uploading', tags: ['batch'], metadata: { lot: 7 } });
      expect((await t.waitDone(d.id)).status).toBe('ready');
    }
  });

  it('answers 400 when the batch has no file', async () => {
    const form = new FormData();
    form.append('tags', '["x"]');
    expectError(await t.request('POST', `/v1/collections/${cid}/documents/batch`, { body: form }), 400, /file/);
  });
});

describe('UTF-8 file names (accents, CJK, emoji, bidirectional controls)', () => {
  const names = ['Résumé 日本.md', '報告書 📈 2024.txt', 'invoice \u202Egpj.md', 'מסמך \u2067שנתי\u2069.md'];
  let collection: string;
  beforeAll(async () => {
    collection = (await t.createCollection({ name: 'Unicode names' })).id;
  });

  it('keeps each name byte for byte through direct upload, reading, listing and filename search', async () => {
    const uploaded: Doc[] = [];
    for (const name of names) uploaded.push(await t.upload(collection, name, `# ${name}\n\nbody\n`));
    expect(uploaded.map((d) => d.filename)).toEqual(names);
    for (const d of uploaded) expect((await t.waitDone(d.id)).filename).toBe(d.filename);
    const listed = (await t.request('GET', `/v1/collections/${collection}/documents`)).body.documents as Doc[];
    expect(listed.map((d) => d.filename).sort()).toEqual([...names].sort());
    const search = async (q: string) =>
      (await t.request('POST', `/v1/collections/${collection}/documents/search`, { json: { q } })).body.map((h: { document: Doc }) => h.document.filename);
    expect((await search('resume'))[0]).toBe('Résumé 日本.md');
    expect((await search('日本'))[0]).toBe('Résumé 日本.md');
    expect((await search('報告書'))[0]).toBe('報告書 📈 2024.txt');
    expect((await search('מסמך'))[0]).toBe(names[3]);
  });

  it('keeps them through a batch upload and through upload-url; a name in NFD is stored in NFC', async () => {
    const form = new FormData();
    for (const name of names) form.append('file', new Blob([`${name}\n`]), name);
    const batch = await t.request('POST', `/v1/collections/${collection}/documents/batch`, { body: form });
    expect(batch.status).toBe(202);
    expect((batch.body.documents as Doc[]).map((d) => d.filename)).toEqual(names);
    for (const name of [...names, 'Re\u0301sume\u0301.md']) {
      const res = await uploadUrl({ filename: name }, collection);
      expect(res.status).toBe(201);
      expect((await t.request<Doc>('GET', `/v1/documents/${res.body.documentId}`)).body.filename).toBe(name.normalize('NFC'));
    }
  });

  it("decodes RFC 5987 filename*=UTF-8'' as curl and some clients send it", async () => {
    const boundary = 'dossier-boundary';
    const body = [
      `--${boundary}`,
      `Content-Disposition: form-data; name="file"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%F0%9F%93%88.md`,
      'Content-Type: text/markdown',
      '',
      '# R\n\nr\n',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const res = await t.request<Doc>('POST', `/v1/collections/${collection}/documents`, {
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.status).toBe(202);
    expect(res.body.filename).toBe('Résumé 📈.md');
  });
});
