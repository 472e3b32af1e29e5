import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT_DOCUMENTS } from '../../../test/fixtures/documents.ts';
import { type Doc, expectError, type Section, sha256, startTestServer, storedUnder, type TestServer } from './helpers.ts';
import { dossierContext } from '@dossier/core/testing';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const DOC_FIELDS = [
  'id',
  'collectionId',
  'filename',
  'status',
  'fileSizeBytes',
  'sectionCount',
  'chunkCount',
  'contentHash',
  'markdownStorageKey',
  'errorMessage',
  'tags',
  'metadata',
  'canonical',
  'createdAt',
  'sourcePath',
  'version',
].sort();

const REPORT = `Intro line before any heading.

# Annual report

The year in brief.

## Revenue

Revenue grew in every quarter.

### Details

Numbers by region.

## Costs

Costs fell.
`;

/** Bytes that start like a PNG image: never convertible, whatever the file name says. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

/** The folder of a document's stored files (original and Markdown) in the data directory. */
const docFolder = (collectionId: string, docId: string, env = 'live') => join(t.dataDir, 'blobs', env, t.projectId, collectionId, docId);

describe('direct upload, wait, markdown and sections', () => {
  it('accepts a multipart upload with 202, lowercasing and deduplicating tags and keeping metadata', async () => {
    const c = await t.createCollection({ name: 'Upload' });
    const doc = await t.upload(c.id, 'Report 2024.md', REPORT, {
      tags: ['Finance', 'finance', ' FINANCE ', 'Annual'],
      metadata: { year: 2024, owner: { team: 'ops', ids: [1, 2] } },
    });
    expect(Object.keys(doc).sort()).toEqual(DOC_FIELDS);
    expect(doc).toMatchObject({
      collectionId: c.id,
      filename: 'Report 2024.md',
      status: 'uploading',
      fileSizeBytes: Buffer.byteLength(REPORT),
      contentHash: sha256(REPORT),
      sectionCount: null,
      chunkCount: null,
      errorMessage: null,
      tags: ['finance', 'annual'],
      metadata: { year: 2024, owner: { team: 'ops', ids: [1, 2] } },
    });
    const ready = await t.waitDone(doc.id);
    expect(ready).toMatchObject({ id: doc.id, status: 'ready', sectionCount: 5, errorMessage: null, tags: ['finance', 'annual'] });
    expect(ready.chunkCount).toBeGreaterThanOrEqual(5);
    expect((await t.request('GET', `/v1/documents/${doc.id}`)).body).toEqual(ready);
  });

  it('serves the Markdown as text/markdown once processed, and sections whose offsets slice it', async () => {
    const c = await t.createCollection({ name: 'Sections' });
    const doc = await t.ingest(c.id, 'report.md', REPORT);
    const md = await t.request('GET', `/v1/documents/${doc.id}/markdown`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.body).toContain('## Revenue');

    const res = await t.request<Section[]>('GET', `/v1/documents/${doc.id}/sections`);
    expect(res.status).toBe(200);
    const sections = res.body;
    expect(sections.map((s) => [s.title, s.level, s.position])).toEqual([
      ['report', 1, 0],
      ['Annual report', 1, 1],
      ['Revenue', 2, 2],
      ['Details', 3, 3],
      ['Costs', 2, 4],
    ]);
    expect(sections[0]!.markdownOffsetStart).toBe(0);
    expect(sections.at(-1)!.markdownOffsetEnd).toBe(md.body.length);
    for (const [i, s] of sections.entries()) {
      expect(s.documentId).toBe(doc.id);
      expect(s.markdownOffsetEnd).toBeGreaterThan(s.markdownOffsetStart);
      if (i > 0) expect(s.markdownOffsetStart).toBe(sections[i - 1]!.markdownOffsetEnd);
      const slice: string = md.body.slice(s.markdownOffsetStart, s.markdownOffsetEnd);
      if (i > 0) expect(slice.startsWith(`${'#'.repeat(s.level)} ${s.title}`)).toBe(true);
      expect(s.summaryType).toBe('extractive');
      expect(s.chunkCount).toBeGreaterThanOrEqual(1);
      const read = await t.request('GET', `/v1/sections/${s.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ ...s, content: slice });
    }
    expect(sections.reduce((n, s) => n + s.chunkCount, 0)).toBe(doc.chunkCount);
  });

  it('answers 404 for the Markdown of a document that has not been processed', async () => {
    const c = await t.createCollection({ name: 'Pending markdown' });
    const pending = await t.request('POST', `/v1/collections/${c.id}/documents/upload-url`, { json: { filename: 'later.md' } });
    expect(pending.status).toBe(201);
    expectError(await t.request('GET', `/v1/documents/${pending.body.documentId}/markdown`), 404, /not complete/);
    const sections = await t.request('GET', `/v1/documents/${pending.body.documentId}/sections`);
    expect(sections.status).toBe(200);
    expect(sections.body).toEqual([]);
  });

  it('ingests an HTML page, a plain-text file and a Markdown file to ready', async () => {
    const c = await t.createCollection({ name: 'Text formats' });
    const docs = await Promise.all(Object.entries(TEXT_DOCUMENTS).map(([name, text]) => t.upload(c.id, name, new TextEncoder().encode(text))));
    for (const doc of docs) {
      const done = await t.waitDone(doc.id);
      expect(done.status, `${doc.filename}: ${done.errorMessage}`).toBe('ready');
      expect(done.sectionCount).toBeGreaterThan(0);
      expect(done.chunkCount).toBeGreaterThan(0);
      const md = (await t.request('GET', `/v1/documents/${doc.id}/markdown`)).body as string;
      expect(md.trim().length).toBeGreaterThan(100);
      if (doc.filename.endsWith('.html')) expect(md).not.toMatch(/<(html|body|div|script)\b/i);
    }
  });
});

describe('GET /v1/collections/:id/documents', () => {
  it('filters by status and pages with limit and offset, newest first, with the total', async () => {
    const c = await t.createCollection({ name: 'Listing' });
    const ready = await t.ingest(c.id, 'ready.md', '# R\n\nready\n');
    const pending: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await t.request('POST', `/v1/collections/${c.id}/documents/upload-url`, { json: { filename: `p${i}.md` } });
      pending.push(r.body.documentId);
    }
    const all = await t.request('GET', `/v1/collections/${c.id}/documents`);
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(['documents', 'total']);
    expect(all.body.total).toBe(5);
    const listed = all.body.documents as Doc[];
    expect(listed.map((d) => d.id).sort()).toEqual([...pending, ready.id].sort());
    expect(listed.at(-1)!.id).toBe(ready.id); // created first, listed last
    const created = listed.map((d) => d.createdAt);
    expect(created).toEqual([...created].sort().reverse());

    const onlyPending = (await t.request('GET', `/v1/collections/${c.id}/documents?status=pending`)).body;
    expect(onlyPending.total).toBe(4);
    expect(onlyPending.documents.every((d: Doc) => d.status === 'pending')).toBe(true);
    const onlyReady = (await t.request('GET', `/v1/collections/${c.id}/documents?status=ready`)).body;
    expect(onlyReady).toEqual({ documents: [ready], total: 1 });
    expectError(await t.request('GET', `/v1/collections/${c.id}/documents?status=done`), 400, /status/);

    const page1 = (await t.request('GET', `/v1/collections/${c.id}/documents?limit=2&offset=0`)).body;
    const page2 = (await t.request('GET', `/v1/collections/${c.id}/documents?limit=2&offset=2`)).body;
    const page3 = (await t.request('GET', `/v1/collections/${c.id}/documents?limit=2&offset=4`)).body;
    expect([page1.total, page2.total, page3.total]).toEqual([5, 5, 5]);
    expect([...page1.documents, ...page2.documents, ...page3.documents].map((d: Doc) => d.id)).toEqual(all.body.documents.map((d: Doc) => d.id));
    expect((await t.request('GET', `/v1/collections/${c.id}/documents?offset=10`)).body).toEqual({ documents: [], total: 5 });
  });

  it('returns 100 documents by default, accepts limit 500 and rejects 501 with 400', async () => {
    const c = await t.createCollection({ name: 'Many' });
    const ids = await Promise.all(
      Array.from({ length: 101 }, async (_, i) => {
        const r = await t.request('POST', `/v1/collections/${c.id}/documents/upload-url`, { json: { filename: `f${i}.txt` } });
        return r.body.documentId as string;
      }),
    );
    expect(new Set(ids).size).toBe(101);
    const byDefault = (await t.request('GET', `/v1/collections/${c.id}/documents`)).body;
    expect(byDefault.documents).toHaveLength(100);
    expect(byDefault.total).toBe(101);
    const max = (await t.request('GET', `/v1/collections/${c.id}/documents?limit=500`)).body;
    expect(max.documents).toHaveLength(101);
    expectError(await t.request('GET', `/v1/collections/${c.id}/documents?limit=501`), 400, /limit/);
  });

  it('filters by tags (repeated: all of them) and anyTags (one of them), with status and paging; bad tags are 400 (issue 34)', async () => {
    const c = await t.createCollection({ name: 'Tag filter' });
    await t.ingest(c.id, 'both.md', '# B\n\nb\n', { tags: ['finance', '2024'] });
    await t.ingest(c.id, 'finance.md', '# F\n\nf\n', { tags: ['Finance'] });
    await t.ingest(c.id, 'legal.md', '# L\n\nl\n', { tags: ['legal'] });
    await t.ingest(c.id, 'none.md', '# N\n\nn\n');
    const list = async (query: string) => {
      const res = await t.request('GET', `/v1/collections/${c.id}/documents?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { names: (res.body.documents as Doc[]).map((d) => d.filename).sort(), total: res.body.total as number };
    };
    expect(await list('tags=finance')).toEqual({ names: ['both.md', 'finance.md'], total: 2 });
    expect(await list('tags=FINANCE&tags=2024')).toEqual({ names: ['both.md'], total: 1 }); // matched as stored: lowercased
    expect(await list('anyTags=legal&anyTags=2024')).toEqual({ names: ['both.md', 'legal.md'], total: 2 });
    expect(await list('anyTags=legal')).toEqual({ names: ['legal.md'], total: 1 });
    expect(await list('tags=finance&anyTags=legal')).toEqual({ names: [], total: 0 });
    expect(await list('tags=finance&limit=1&offset=1')).toEqual({ names: ['both.md'], total: 2 }); // newest first
    expect(await list('tags=finance&status=error')).toEqual({ names: [], total: 0 });
    expect((await list('tags=finance&status=ready')).total).toBe(2);
    expectError(await t.request('GET', `/v1/collections/${c.id}/documents?tags=`), 400, /tags/);
    expectError(await t.request('GET', `/v1/collections/${c.id}/documents?tags=${'x'.repeat(201)}`), 400, /tags/);
    const tooMany = Array.from({ length: 101 }, (_, i) => `tags=t${i}`).join('&');
    expectError(await t.request('GET', `/v1/collections/${c.id}/documents?${tooMany}`), 400, /tags/);
    expectError(await t.request('GET', `/v1/collections/${c.id}/documents?tag=finance`), 400, /tag/);
  });
});

describe('PATCH documents: tags and metadata', () => {
  it('replaces tags, shallow-merges metadata, and replaces metadata when asked', async () => {
    const c = await t.createCollection({ name: 'Patch' });
    const doc = await t.ingest(c.id, 'p.md', '# P\n\npatch me\n', { tags: ['old', 'keep'], metadata: { a: 1, nested: { x: 1 } } });
    const path = `/v1/collections/${c.id}/documents/${doc.id}`;

    const tagged = await t.request('PATCH', path, { json: { tags: ['New', 'new', 'Other'] } });
    expect(tagged.status).toBe(200);
    expect(tagged.body).toMatchObject({ id: doc.id, tags: ['new', 'other'], metadata: { a: 1, nested: { x: 1 } }, status: 'ready' });

    const merged = await t.request('PATCH', path, { json: { metadata: { b: 2, nested: { y: 2 } } } });
    expect(merged.status).toBe(200);
    expect(merged.body.metadata).toEqual({ a: 1, b: 2, nested: { y: 2 } });
    expect(merged.body.tags).toEqual(['new', 'other']);

    const replaced = await t.request('PATCH', path, { json: { metadata: { only: true }, replaceMetadata: true } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.metadata).toEqual({ only: true });
    expect((await t.request('GET', `/v1/documents/${doc.id}`)).body).toEqual(replaced.body);

    // the new attributes reach retrieval, not only the document row
    const hits = await t.request('POST', `/v1/collections/${c.id}/query`, { json: { q: 'patch', tags: ['new'], metadata: { only: true } } });
    expect(hits.body.map((h: { document: { id: string } }) => h.document.id)).toEqual([doc.id]);
    const none = await t.request('POST', `/v1/collections/${c.id}/query`, { json: { q: 'patch', tags: ['old'] } });
    expect(none.body).toEqual([]);
  });

  it('answers 404 when the document is not in the collection of the path', async () => {
    const a = await t.createCollection({ name: 'Patch A' });
    const b = await t.createCollection({ name: 'Patch B' });
    const doc = await t.upload(a.id, 'a.md', '# A\n\na\n');
    expectError(await t.request('PATCH', `/v1/collections/${b.id}/documents/${doc.id}`, { json: { tags: ['x'] } }), 404, /not found/);
  });

  it('updates several documents in one bulk PATCH and answers them in order', async () => {
    const c = await t.createCollection({ name: 'Bulk' });
    const d1 = await t.ingest(c.id, 'one.md', '# One\n\nfirst\n', { metadata: { k: 'v' } });
    const d2 = await t.ingest(c.id, 'two.md', '# Two\n\nsecond\n', { tags: ['x'] });
    const res = await t.request('PATCH', `/v1/collections/${c.id}/documents/bulk`, {
      json: {
        documents: [
          { id: d2.id, tags: ['B', 'b'] },
          { id: d1.id, metadata: { k2: 'v2' } },
          { id: d2.id, metadata: { z: 1 }, replaceMetadata: true },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((d: Doc) => [d.id, d.tags, d.metadata])).toEqual([
      [d2.id, ['b'], {}],
      [d1.id, [], { k: 'v', k2: 'v2' }],
      [d2.id, ['b'], { z: 1 }],
    ]);
    expect((await t.request('GET', `/v1/documents/${d2.id}`)).body).toMatchObject({ tags: ['b'], metadata: { z: 1 } });
  });

  it('rejects a bulk PATCH of 0 or 501 documents, or of an unknown document, and changes nothing', async () => {
    const c = await t.createCollection({ name: 'Bulk limits' });
    const d = await t.upload(c.id, 'd.md', '# D\n\nd\n', { tags: ['before'] });
    expectError(await t.request('PATCH', `/v1/collections/${c.id}/documents/bulk`, { json: { documents: [] } }), 400, /documents/);
    const many = Array.from({ length: 501 }, () => ({ id: d.id, tags: ['x'] }));
    expectError(await t.request('PATCH', `/v1/collections/${c.id}/documents/bulk`, { json: { documents: many } }), 400, /documents/);
    const unknown = {
      documents: [
        { id: d.id, tags: ['after'] },
        { id: crypto.randomUUID(), tags: ['x'] },
      ],
    };
    expectError(await t.request('PATCH', `/v1/collections/${c.id}/documents/bulk`, { json: unknown }), 404, /not found/);
    expect((await t.request('GET', `/v1/documents/${d.id}`)).body.tags).toEqual(['before']);
  });

  it('counts tags per document and says whether any document has metadata', async () => {
    const c = await t.createCollection({ name: 'Tags' });
    const empty = await t.request('GET', `/v1/collections/${c.id}/tags`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ tags: [], hasMetadata: false });
    await t.upload(c.id, 'a.md', '# A\n\na\n', { tags: ['red', 'blue'] });
    await t.upload(c.id, 'b.md', '# B\n\nb\n', { tags: ['Red'] });
    expect((await t.request('GET', `/v1/collections/${c.id}/tags`)).body.hasMetadata).toBe(false);
    await t.upload(c.id, 'c.md', '# C\n\nc\n', { tags: ['red'], metadata: { source: 'web' } });
    const res = await t.request('GET', `/v1/collections/${c.id}/tags`);
    expect(res.body.hasMetadata).toBe(true);
    const counts = Object.fromEntries(res.body.tags.map((x: { name: string; count: number }) => [x.name, x.count]));
    expect(counts).toEqual({ red: 3, blue: 1 });
  });
});

describe('POST /v1/collections/:id/documents/search (filename search)', () => {
  let cid: string;
  beforeAll(async () => {
    const c = await t.createCollection({ name: 'Filename search' });
    cid = c.id;
    await t.upload(cid, 'quarterly-report-2024.pdf.md', '# Q\n\nq\n', { tags: ['finance'], metadata: { year: 2024 } });
    await t.upload(cid, 'quarterly-report-2023.md', '# Q\n\nq\n', { tags: ['finance', 'archive'], metadata: { year: 2023 } });
    await t.upload(cid, 'meeting-notes.txt', 'notes\n', { tags: ['team'] });
    await t.upload(cid, 'budget-plan.md', '# B\n\nb\n', { tags: ['finance'] });
  });
  const search = (json: Record<string, unknown>) => t.request('POST', `/v1/collections/${cid}/documents/search`, { json });

  it('finds a file despite a typo in the query, best match first', async () => {
    const res = await search({ q: 'quartely reprt' });
    expect(res.status).toBe(200);
    const names = res.body.map((h: { document: Doc }) => h.document.filename);
    expect(names.slice(0, 2).sort()).toEqual(['quarterly-report-2023.md', 'quarterly-report-2024.pdf.md']);
    expect(names).not.toContain('meeting-notes.txt');
    const scores = res.body.map((h: { score: number }) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const h of res.body) {
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBeLessThanOrEqual(1);
      expect(Object.keys(h.document).sort()).toEqual(DOC_FIELDS);
    }
    const notes = await search({ q: 'meeting' });
    expect(notes.body[0].document.filename).toBe('meeting-notes.txt');
  });

  it('applies tags, anyTags and metadata filters', async () => {
    const names = async (json: Record<string, unknown>) =>
      (await search({ q: 'quarterly report', ...json })).body.map((h: { document: Doc }) => h.document.filename);
    expect(await names({ tags: ['finance', 'archive'] })).toEqual(['quarterly-report-2023.md']);
    expect(await names({ anyTags: ['archive', 'nothing'] })).toEqual(['quarterly-report-2023.md']);
    expect(await names({ metadata: { year: 2024 } })).toEqual(['quarterly-report-2024.pdf.md']);
    expect(await names({ tags: ['team'] })).toEqual([]);
  });

  it('returns at most limit results and rejects limits outside 1 to 100 with 400', async () => {
    expect((await search({ q: 'report', limit: 1 })).body).toHaveLength(1);
    expectError(await search({ q: 'report', limit: 0 }), 400, /limit/);
    expectError(await search({ q: 'report', limit: 101 }), 400, /limit/);
    expect((await search({ q: 'report', limit: 100 })).status).toBe(200);
    expectError(await search({ limit: 5 }), 400, /q/);
  });
});

describe('a Markdown file uploaded as it is', () => {
  it('is stored once: its original is its Markdown, for the markdown and section endpoints and the storage figures', async () => {
    const c = await t.createCollection({ name: 'Stored once' });
    const text = '# Once\n\nA single stored copy of this narwhal file.\n\n## Second\n\nMore narwhal text.\n';
    const doc = await t.ingest(c.id, 'once.md', text);
    expect(await storedUnder(t.dataDir, docFolder(c.id, doc.id))).toEqual(['original']);
    expect(doc.markdownStorageKey).toMatch(/\/original$/);
    expect((await t.request('GET', `/v1/documents/${doc.id}/markdown`)).body).toBe(text);
    const sections = (await t.request('GET', `/v1/documents/${doc.id}/sections`)).body as { id: string; title: string }[];
    const second = (await t.request('GET', `/v1/sections/${sections.find((s) => s.title === 'Second')!.id}`)).body;
    expect(second.content).toBe('## Second\n\nMore narwhal text.\n');
    const stats = (await t.request('GET', `/v1/collections/${c.id}/stats`)).body;
    expect(stats.storageBytes).toBe(new TextEncoder().encode(text).byteLength);
  });
});

describe('deleting documents', () => {
  it('deletes a document with 204 and removes its stored files from the data directory', async () => {
    const c = await t.createCollection({ name: 'Delete one' });
    const doc = await t.ingest(c.id, 'gone.html', '<h1>Gone</h1><p>soon deleted unicorn</p>');
    const folder = docFolder(c.id, doc.id);
    expect(await storedUnder(t.dataDir, folder)).toEqual(['document.md', 'original']);
    expect((await t.request('POST', `/v1/collections/${c.id}/query`, { json: { q: 'unicorn' } })).body).toHaveLength(1);

    const del = await t.request('DELETE', `/v1/documents/${doc.id}`);
    expect(del.status).toBe(204);
    expect(existsSync(folder)).toBe(false);
    expect(await storedUnder(t.dataDir, folder)).toEqual([]);
    expectError(await t.request('GET', `/v1/documents/${doc.id}`), 404, /Document not found/);
    expectError(await t.request('GET', `/v1/documents/${doc.id}/markdown`), 404);
    expectError(await t.request('DELETE', `/v1/documents/${doc.id}`), 404);
    expect((await t.request('POST', `/v1/collections/${c.id}/query`, { json: { q: 'unicorn' } })).body).toEqual([]);
    expect((await t.request('GET', `/v1/collections/${c.id}/stats`)).body).toMatchObject({ docCount: 0, storageBytes: 0, totalChunks: 0 });
  });

  it('deletes several documents in one batch (DELETE or POST batch-delete) and their files', async () => {
    const c = await t.createCollection({ name: 'Delete batch' });
    const docs = await Promise.all(['a', 'b', 'c', 'd'].map((n) => t.ingest(c.id, `${n}.md`, `# ${n}\n\ntext ${n}\n`)));
    const [a, b, cc, d] = docs as [Doc, Doc, Doc, Doc];
    const del = await t.request('DELETE', `/v1/collections/${c.id}/documents/batch`, { json: { ids: [a.id, b.id] } });
    expect(del.status).toBe(204);
    const post = await t.request('POST', `/v1/collections/${c.id}/documents/batch-delete`, { json: { ids: [cc.id] } });
    expect(post.status).toBe(204);
    for (const gone of [a, b, cc]) {
      expectError(await t.request('GET', `/v1/documents/${gone.id}`), 404);
      expect(await storedUnder(t.dataDir, docFolder(c.id, gone.id))).toEqual([]);
    }
    expect((await t.request('GET', `/v1/collections/${c.id}/documents`)).body).toMatchObject({ total: 1, documents: [{ id: d.id }] });
    expect(await storedUnder(t.dataDir, docFolder(c.id, d.id))).toEqual(['original']);
  });

  it('rejects an empty batch with 400 and a batch naming a foreign document with 404, deleting nothing', async () => {
    const c = await t.createCollection({ name: 'Delete batch errors' });
    const other = await t.createCollection({ name: 'Delete batch other' });
    const mine = await t.upload(c.id, 'mine.md', '# M\n\nm\n');
    const theirs = await t.upload(other.id, 'theirs.md', '# T\n\nt\n');
    expectError(await t.request('DELETE', `/v1/collections/${c.id}/documents/batch`, { json: { ids: [] } }), 400, /ids/);
    expectError(await t.request('DELETE', `/v1/collections/${c.id}/documents/batch`, { json: { ids: [mine.id, theirs.id] } }), 404, /not found/);
    expect((await t.request('GET', `/v1/documents/${mine.id}`)).status).toBe(200);
    expect((await t.request('GET', `/v1/documents/${theirs.id}`)).status).toBe(200);
  });
});

describe('retrying documents in error', () => {
  it('re-queues a document in error, which runs the pipeline again', async () => {
    const c = await t.createCollection({ name: 'Retry' });
    const doc = await t.upload(c.id, 'image.md', PNG);
    const failed = await t.waitDone(doc.id);
    expect(failed.status).toBe('error');

    // Fix the stored file in place, as an operator would, so the retry can succeed.
    await dossierContext(t.server.dossier).blobs.put(`live/${t.projectId}/${c.id}/${doc.id}/original`, new TextEncoder().encode('# Fixed\n\nnow readable\n'));
    const retried = await t.request<Doc>('POST', `/v1/documents/${doc.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: doc.id, status: 'processing', errorMessage: null });
    const done = await t.waitDone(doc.id);
    expect(done).toMatchObject({ status: 'ready', sectionCount: 1, errorMessage: null });
  });

  it('refuses to retry a document that is not in error with 400', async () => {
    const c = await t.createCollection({ name: 'Retry ready' });
    const doc = await t.ingest(c.id, 'ok.md', '# OK\n\nfine\n');
    expectError(await t.request('POST', `/v1/documents/${doc.id}/retry`), 400, /status is ready/);
  });

  it('re-queues every failed document with retry-failed and answers [] when none failed', async () => {
    const c = await t.createCollection({ name: 'Retry failed' });
    const none = await t.request('POST', `/v1/collections/${c.id}/documents/retry-failed`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);

    const ok = await t.ingest(c.id, 'ok.md', '# OK\n\nfine\n');
    const bad = await Promise.all(['x.md', 'y.md'].map((n) => t.upload(c.id, n, PNG)));
    for (const d of bad) expect((await t.waitDone(d.id)).status).toBe('error');
    const res = await t.request<Doc[]>('POST', `/v1/collections/${c.id}/documents/retry-failed`);
    expect(res.status).toBe(200);
    expect(res.body.map((d) => d.id).sort()).toEqual(bad.map((d) => d.id).sort());
    expect(res.body.every((d) => d.status === 'uploading' && d.errorMessage === null)).toBe(true);
    for (const d of bad) expect((await t.waitDone(d.id)).status).toBe('error'); // still a PNG: fails again, clearly
    expect((await t.request('GET', `/v1/documents/${ok.id}`)).body.status).toBe('ready');
  });
});
