import { readdir, stat } from 'node:fs/promises';
import { openSmallObjects } from '@dossier/adapters';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Doc, expectError, startTestServer, type TestServer } from './helpers.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** The fields of a Collection (spec: Resources, Collection), plus queryExpansion (issue 4), nothing more. */
const COLLECTION_FIELDS = [
  'id',
  'name',
  'visibility',
  'description',
  'chunkSize',
  'chunkOverlap',
  'embeddingModel',
  'enableSummarization',
  'enableCaptioning',
  'enableReranking',
  'enableDeduplication',
  'suppressContradictionsByMetadata',
  'suppressIntraDocumentContradictions',
  'llmModel',
  'instructions',
  'queryExpansion',
  'duplicateThreshold',
  'createdAt',
].sort();

/** A Markdown document with one section of roughly `words` tokens. */
const longSection = (title: string, words: number): string => `# ${title}\n\n${Array.from({ length: words }, (_, i) => `word${i % 97}`).join(' ')}\n`;

describe('POST /v1/collections', () => {
  it('creates a collection with the spec defaults and answers 201', async () => {
    const res = await t.request('POST', '/v1/collections', { json: { projectId: t.projectId, name: 'Defaults' } });
    expect(res.status).toBe(201);
    const c = res.body;
    expect(Object.keys(c).sort()).toEqual(COLLECTION_FIELDS);
    expect(c.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(c).toMatchObject({
      name: 'Defaults',
      visibility: 'private',
      description: null,
      chunkSize: 512,
      chunkOverlap: 64,
      embeddingModel: 'none',
      enableSummarization: true,
      enableCaptioning: true,
      enableReranking: true,
      enableDeduplication: false,
      suppressContradictionsByMetadata: true,
      suppressIntraDocumentContradictions: true,
      llmModel: null,
      instructions: null,
      queryExpansion: null,
    });
    expect(new Date(c.createdAt).toISOString()).toBe(c.createdAt);
  });

  it('keeps the optional settings it is given', async () => {
    const c = await t.createCollection({
      name: 'Custom',
      visibility: 'public',
      description: 'about things',
      chunkSize: 128,
      chunkOverlap: 16,
      embeddingModel: 'none',
    });
    expect(c).toMatchObject({ name: 'Custom', visibility: 'public', description: 'about things', chunkSize: 128, chunkOverlap: 16, embeddingModel: 'none' });
  });

  it('rejects a missing name with 400 naming the field', async () => {
    expectError(await t.request('POST', '/v1/collections', { json: { projectId: t.projectId } }), 400, /name/);
  });

  it('rejects chunkSize and chunkOverlap outside their ranges with 400', async () => {
    for (const bad of [{ chunkSize: 63 }, { chunkSize: 4097 }, { chunkOverlap: -1 }, { chunkOverlap: 513 }, { chunkSize: 100, chunkOverlap: 100 }]) {
      const res = await t.request('POST', '/v1/collections', { json: { projectId: t.projectId, name: 'x', ...bad } });
      expectError(res, 400, /chunk(Size|Overlap)/);
    }
  });

  it('rejects an embedding model the server cannot load with 400 naming it', async () => {
    const res = await t.request('POST', '/v1/collections', { json: { projectId: t.projectId, name: 'x', embeddingModel: 'no-such/model' } });
    expectError(res, 400, /no-such\/model/);
  });

  it("answers 403 when projectId names another project than the key's", async () => {
    const res = await t.request('POST', '/v1/collections', { json: { projectId: crypto.randomUUID(), name: 'x' } });
    expectError(res, 403, /projectId/);
  });
});

describe('GET /v1/collections and /v1/collections/:id', () => {
  it("lists the project's collections and gets one by id", async () => {
    const a = await t.createCollection({ name: 'Listed A' });
    const b = await t.createCollection({ name: 'Listed B' });
    const list = await t.request('GET', '/v1/collections');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    const ids = list.body.map((c: { id: string }) => c.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    for (const c of list.body) expect(Object.keys(c).sort()).toEqual(COLLECTION_FIELDS);
    const got = await t.request('GET', `/v1/collections/${a.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(a);
  });
});

describe('GET /v1/collections/:id/stats', () => {
  it('reports zeros and no statuses for an empty collection', async () => {
    const c = await t.createCollection({ name: 'Empty stats' });
    const res = await t.request('GET', `/v1/collections/${c.id}/stats`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ docCount: 0, totalFileSizeBytes: 0, storageBytes: 0, totalSections: 0, totalChunks: 0, statusCounts: {} });
  });

  it('reports every CollectionStats field consistently with the documents ingested', async () => {
    const c = await t.createCollection({ name: 'Stats' });
    const texts = ['# One\n\nFirst document text.\n\n## Two\n\nMore text.\n', '# Alpha\n\nSecond document.\n'];
    const docs: Doc[] = [];
    for (const [i, text] of texts.entries()) docs.push(await t.ingest(c.id, `doc${i}.md`, text));
    const broken = await t.upload(c.id, 'broken.md', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]));
    expect((await t.waitDone(broken.id)).status).toBe('error');
    const pending = await t.request('POST', `/v1/collections/${c.id}/documents/upload-url`, { json: { filename: 'later.md' } });
    expect(pending.status).toBe(201);

    const res = await t.request('GET', `/v1/collections/${c.id}/stats`);
    expect(res.status).toBe(200);
    const s = res.body;
    expect(Object.keys(s).sort()).toEqual(
      [
        'docCount',
        'totalFileSizeBytes',
        'storageBytes',
        'dbBytes',
        'totalSections',
        'totalChunks',
        'statusCounts',
        'summarizedCount',
        'captionedCount',
        'claimsExtractedCount',
        'totalClaimsCount',
      ].sort(),
    );
    const bytes = texts.reduce((n, x) => n + Buffer.byteLength(x), 0) + 11;
    expect(s.docCount).toBe(4);
    expect(s.totalFileSizeBytes).toBe(bytes);
    // the raw files: a Markdown file's Markdown is the file itself, stored once
    expect(s.storageBytes).toBe(bytes);
    expect(s.dbBytes).toBeGreaterThan(0);
    expect(s.totalSections).toBe(docs.reduce((n, d) => n + (d.sectionCount ?? 0), 0));
    expect(s.totalChunks).toBe(docs.reduce((n, d) => n + (d.chunkCount ?? 0), 0));
    expect(s.totalSections).toBe(3);
    expect(s.statusCounts).toEqual({ ready: 2, error: 1, pending: 1 });
    // No model provider is configured here: no AI summaries, captions or claims exist.
    expect(s).toMatchObject({ summarizedCount: 0, captionedCount: 0, claimsExtractedCount: 0, totalClaimsCount: 0 });
  });
});

/**
 * Bytes stored in a data directory: every file under its blobs folder (the test's own walk, to check the counters
 * against the disk), and the small originals kept as rows of blobs.db.
 */
async function bytesStored(dataDir: string): Promise<number> {
  const entries = await readdir(join(dataDir, 'blobs'), { withFileTypes: true, recursive: true });
  const sizes = await Promise.all(entries.filter((e) => e.isFile()).map(async (e) => (await stat(join(e.parentPath, e.name))).size));
  const small = openSmallObjects(join(dataDir, 'blobs.db'));
  try {
    return sizes.reduce((a, b) => a + b, 0) + small.sizeOfPrefix('');
  } finally {
    await small.close();
  }
}

describe('storage counters', () => {
  it('storageBytes equals the bytes of the files stored for the collection, and the usage meter reads the same sum', async () => {
    const own = await startTestServer();
    try {
      const c = await own.createCollection({ name: 'Counted' });
      await own.ingest(c.id, 'a.md', '# A\n\nAlpha text here.\n');
      await own.ingest(c.id, 'b.html', '<html><body><h1>B</h1><p>Bravo &amp; more</p></body></html>');
      const gone = await own.ingest(c.id, 'gone.md', '# Gone\n\nRemoved soon.\n');
      expect((await own.request('DELETE', `/v1/documents/${gone.id}`)).status).toBe(204);
      const stats = (await own.request('GET', `/v1/collections/${c.id}/stats`)).body;
      expect(stats.storageBytes).toBe(await bytesStored(own.dataDir));
      const usage = (await own.request('GET', '/v1/usage')).body;
      expect(usage.meters.storage.usedMb).toBeCloseTo(stats.storageBytes / (1024 * 1024), 6);
    } finally {
      await own.close();
    }
  });

  it('GET …/stats answers 200 throughout a burst of uploads', async () => {
    const c = await t.createCollection({ name: 'Busy' });
    const uploads = Array.from({ length: 12 }, (_, i) => t.upload(c.id, `n${i}.md`, `# Note ${i}\n\n${'text '.repeat(50 + i)}\n`));
    const probes = Array.from({ length: 12 }, () => t.request('GET', `/v1/collections/${c.id}/stats`));
    const docs = await Promise.all(uploads);
    expect((await Promise.all(probes)).map((r) => r.status)).toEqual(Array(12).fill(200));
    await Promise.all(docs.map((d) => t.waitDone(d.id)));
    const after = (await t.request('GET', `/v1/collections/${c.id}/stats`)).body;
    expect(after.statusCounts).toEqual({ ready: 12 });
    expect(after.storageBytes).toBeGreaterThan(after.totalFileSizeBytes);
  });
});

describe('PATCH /v1/collections/:id', () => {
  it('updates the settings it is given and leaves the others alone', async () => {
    const c = await t.createCollection({ name: 'Before', description: 'kept' });
    const patch = {
      name: 'After',
      visibility: 'public',
      enableSummarization: false,
      enableCaptioning: false,
      enableReranking: false,
      enableDeduplication: true,
      suppressContradictionsByMetadata: false,
      suppressIntraDocumentContradictions: false,
      llmModel: 'some-model',
      instructions: 'Answer briefly.',
      queryExpansion: 'rm3',
    };
    const res = await t.request('PATCH', `/v1/collections/${c.id}`, { json: patch });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...c, ...patch });
    expect((await t.request('GET', `/v1/collections/${c.id}`)).body).toEqual({ ...c, ...patch });
    const cleared = await t.request('PATCH', `/v1/collections/${c.id}`, {
      json: { instructions: null, llmModel: null, description: null, queryExpansion: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ instructions: null, llmModel: null, description: null, queryExpansion: null, name: 'After' });
    expectError(await t.request('PATCH', `/v1/collections/${c.id}`, { json: { queryExpansion: 'bm42' } }), 400, /queryExpansion/);
  });

  it('applies a new chunkSize to new documents only', async () => {
    const c = await t.createCollection({ name: 'Rechunk', chunkSize: 64, chunkOverlap: 0 });
    const text = longSection('Long part', 600);
    const before = await t.ingest(c.id, 'before.md', text);
    expect(before.chunkCount).toBeGreaterThan(3);

    const res = await t.request('PATCH', `/v1/collections/${c.id}`, { json: { chunkSize: 4096 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ chunkSize: 4096, chunkOverlap: 0 });

    const after = await t.ingest(c.id, 'after.md', text);
    expect(after.chunkCount).toBe(1);
    const unchanged = await t.request<Doc>('GET', `/v1/documents/${before.id}`);
    expect(unchanged.body.chunkCount).toBe(before.chunkCount);

    const maxTokens = async (doc: Doc) => {
      const sections = (await t.request('GET', `/v1/documents/${doc.id}/sections`)).body;
      const chunks = (await t.request('GET', `/v1/sections/${sections[0].id}/chunks`)).body;
      return Math.max(...chunks.map((ch: { tokenCount: number }) => ch.tokenCount));
    };
    expect(await maxTokens(before)).toBeLessThanOrEqual(64);
    expect(await maxTokens(after)).toBeGreaterThan(64);
  });

  it('rejects any change of embeddingModel with 400', async () => {
    const c = await t.createCollection({ name: 'Fixed model' });
    for (const embeddingModel of ['other-model', 'none']) {
      const res = await t.request('PATCH', `/v1/collections/${c.id}`, { json: { embeddingModel } });
      expectError(res, 400, /embeddingModel/);
    }
    expect((await t.request('GET', `/v1/collections/${c.id}`)).body.embeddingModel).toBe('none');
  });

  it('accepts instructions of 4000 characters and rejects 4001 with 400', async () => {
    const c = await t.createCollection({ name: 'Instructions' });
    expect((await t.request('PATCH', `/v1/collections/${c.id}`, { json: { instructions: 'x'.repeat(4000) } })).status).toBe(200);
    expectError(await t.request('PATCH', `/v1/collections/${c.id}`, { json: { instructions: 'x'.repeat(4001) } }), 400, /instructions/);
    expect((await t.request('GET', `/v1/collections/${c.id}`)).body.instructions).toHaveLength(4000);
  });

  it('rejects an overlap that is not smaller than the chunk size with 400', async () => {
    const c = await t.createCollection({ name: 'Overlap', chunkSize: 128, chunkOverlap: 32 });
    expectError(await t.request('PATCH', `/v1/collections/${c.id}`, { json: { chunkSize: 64, chunkOverlap: 64 } }), 400, /chunkOverlap/);
    expectError(await t.request('PATCH', `/v1/collections/${c.id}`, { json: { chunkOverlap: 128 } }), 400, /chunkOverlap/);
  });

  it('accepts PUT as the same update', async () => {
    const c = await t.createCollection({ name: 'Put' });
    const res = await t.request('PUT', `/v1/collections/${c.id}`, { json: { name: 'Put renamed' } });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Put renamed');
  });
});

describe('DELETE /v1/collections/:id', () => {
  it('soft-deletes with 204, after which the collection and its documents answer 404', async () => {
    const c = await t.createCollection({ name: 'Doomed' });
    const doc = await t.ingest(c.id, 'x.md', '# X\n\ntext\n');
    const del = await t.request('DELETE', `/v1/collections/${c.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBe('');
    expectError(await t.request('GET', `/v1/collections/${c.id}`), 404, /Collection not found/);
    expectError(await t.request('GET', `/v1/collections/${c.id}/stats`), 404);
    expectError(await t.request('GET', `/v1/collections/${c.id}/documents`), 404);
    expectError(await t.request('POST', `/v1/collections/${c.id}/query`, { json: { q: 'text' } }), 404);
    expectError(await t.request('GET', `/v1/documents/${doc.id}`), 404, /Document not found/);
    expectError(await t.request('DELETE', `/v1/collections/${c.id}`), 404);
    const list = (await t.request('GET', '/v1/collections')).body;
    expect(list.map((x: { id: string }) => x.id)).not.toContain(c.id);
  });
});
