import { FakeEmbedder } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Doc, expectError, type Section, startTestServer, type TestServer } from './helpers.ts';

const embedder = new FakeEmbedder({ dimension: 32 });

let t: TestServer;
let cid: string;
const docs: Record<string, Doc> = {};

const LIGHTHOUSES = `# Lighthouses

Lighthouse keepers tended the lamp through every storm on the rocky coast.

## Fresnel lenses

The Fresnel lens let a small lamp throw its beam far out to sea, guiding ships past the rocks.

## Automation

Most lighthouses were automated in the twentieth century and the keepers left.
`;
const HARBOURS = `# Harbours

A harbour shelters ships from storms; its entrance is often marked by a small lighthouse.

## Tides

Tides decide when large ships may enter the harbour.
`;
const MOUNTAINS = `# Mountains

Mountain passes close in winter when snow falls on the high ridges.

## Glaciers

Glaciers carve valleys slowly over thousands of years.
`;

beforeAll(async () => {
  t = await startTestServer({ embedders: [embedder] });
  cid = (await t.createCollection({ name: 'Retrieval' })).id;
  const specs: [string, string, string[], Record<string, unknown>][] = [
    ['lighthouses.md', LIGHTHOUSES, ['coast', 'history'], { region: 'north', year: 1900 }],
    ['harbours.md', HARBOURS, ['coast'], { region: 'south' }],
    ['mountains.md', MOUNTAINS, ['inland'], { region: 'south' }],
  ];
  const uploaded = await Promise.all(specs.map(([name, text, tags, metadata]) => t.upload(cid, name, text, { tags, metadata })));
  for (const d of uploaded) {
    const done = await t.waitDone(d.id);
    expect(done.status).toBe('ready');
    docs[d.filename] = done;
  }
});
afterAll(async () => {
  await t?.close();
});

interface Hit {
  foundBy?: { lexical?: number; vector?: number };
  score: number;
  chunk: { id: string; content: string; position: number; tokenCount: number };
  section: { id: string; title: string; level: number };
  span?: { start: number; end: number };
  document: { id: string; filename: string };
}

const query = (json: Record<string, unknown>, collectionId = cid) => t.request<Hit[]>('POST', `/v1/collections/${collectionId}/query`, { json });
const scan = (json: Record<string, unknown>, collectionId = cid) => t.request('POST', `/v1/collections/${collectionId}/sections/scan`, { json });
const filenames = (hits: Hit[]) => [...new Set(hits.map((h) => h.document.filename))].sort();
const descending = (scores: number[]) => expect(scores).toEqual([...scores].sort((a, b) => b - a));

describe('POST /v1/collections/:id/query', () => {
  it('returns chunks with score, chunk, section and document provenance, best first', async () => {
    const res = await query({ q: 'lighthouse keepers storm' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-dossier-reranker')).toBe('none');
    expect(res.body.length).toBeGreaterThan(0);
    for (const h of res.body) {
      expect(Object.keys(h).sort()).toEqual(['chunk', 'document', 'foundBy', 'score', 'section', 'span']); // span: issue 39, foundBy: 34
      expect(Object.keys(h.chunk).sort()).toEqual(['content', 'id', 'position', 'tokenCount']);
      expect(Object.keys(h.section).sort()).toEqual(['id', 'level', 'title']);
      expect(Object.keys(h.document).sort()).toEqual(['filename', 'id']);
      expect(h.score).toBeGreaterThan(0);
      expect(h.chunk.tokenCount).toBeGreaterThan(0);
      expect(Number.isInteger(h.chunk.position)).toBe(true);
      expect(docs[h.document.filename]?.id).toBe(h.document.id);
    }
    descending(res.body.map((h) => h.score));
    expect(res.body[0]!.document.filename).toBe('lighthouses.md');
    expect(res.body[0]!.chunk.content).toMatch(/keepers/i);
    // Without embeddings only the lexical list runs, and it gives the order: ranks 1, 2, 3…
    expect(res.body.map((h) => h.foundBy)).toEqual(res.body.map((_, i) => ({ lexical: i + 1 })));
  });

  it('answers [] when nothing matches', async () => {
    const res = await query({ q: 'xylophone' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('filters by all tags, any tag, and metadata pairs', async () => {
    expect(filenames((await query({ q: 'ships storms lighthouse' })).body)).toEqual(['harbours.md', 'lighthouses.md']);
    expect(filenames((await query({ q: 'ships storms lighthouse', tags: ['coast', 'history'] })).body)).toEqual(['lighthouses.md']);
    expect(filenames((await query({ q: 'ships storms lighthouse', tags: ['COAST'] })).body)).toEqual(['harbours.md', 'lighthouses.md']);
    expect(filenames((await query({ q: 'ships storms lighthouse snow', anyTags: ['inland', 'history'] })).body)).toEqual(['lighthouses.md', 'mountains.md']);
    expect(filenames((await query({ q: 'ships storms lighthouse snow', metadata: { region: 'south' } })).body)).toEqual(['harbours.md', 'mountains.md']);
    expect(filenames((await query({ q: 'ships storms lighthouse', metadata: { region: 'north', year: 1900 } })).body)).toEqual(['lighthouses.md']);
    expect((await query({ q: 'ships storms lighthouse', metadata: { region: 'north', year: 1901 } })).body).toEqual([]);
    expect((await query({ q: 'ships storms lighthouse', metadata: { year: '1900' } })).body).toEqual([]); // types matter
    expect((await query({ q: 'ships storms', tags: ['coast'], anyTags: ['inland'] })).body).toEqual([]);
  });

  it('still returns `limit` results under a filter when that many chunks match', async () => {
    const c = await t.createCollection({ name: 'Filtered limit' });
    // 60 sections that match the query strongly, and 8 weakly matching documents carrying the tag.
    const common = Array.from({ length: 60 }, (_, i) => `# Zebra ${i}\n\nzebra zebra zebra crossing number ${i}\n`).join('\n');
    const form = new FormData();
    form.append('file', new Blob([common]), 'common.md');
    const uploaded = [(await t.request('POST', `/v1/collections/${c.id}/documents`, { body: form })).body as Doc];
    const rare = new FormData();
    for (let i = 0; i < 8; i++) {
      rare.append(
        'file',
        new Blob([`# Rare ${i}\n\nA long note about savannah wildlife, grazing herds, acacia trees and one zebra (${i}).\n`]),
        `rare-${i}.md`,
      );
    }
    rare.append('tags', '["rare"]');
    rare.append('metadata', '{"kind":"rare"}');
    const batch = await t.request('POST', `/v1/collections/${c.id}/documents/batch`, { body: rare });
    expect(batch.status).toBe(202);
    uploaded.push(...(batch.body.documents as Doc[]));
    for (const d of uploaded) expect((await t.waitDone(d.id)).status).toBe('ready');

    const unfiltered = await query({ q: 'zebra' }, c.id);
    expect(unfiltered.body).toHaveLength(10); // the default limit
    expect(unfiltered.body.every((h) => h.document.filename === 'common.md')).toBe(true);
    expect((await query({ q: 'zebra', limit: 50 }, c.id)).body).toHaveLength(50);

    for (const filter of [{ tags: ['rare'] }, { anyTags: ['rare', 'none'] }, { metadata: { kind: 'rare' } }]) {
      const res = await query({ q: 'zebra', limit: 8, ...filter }, c.id);
      expect(res.body.map((h) => h.document.filename).sort(), JSON.stringify(filter)).toEqual(Array.from({ length: 8 }, (_, i) => `rare-${i}.md`));
      const five = await query({ q: 'zebra', limit: 5, ...filter }, c.id);
      expect(five.body).toHaveLength(5);
    }
  });
});

describe('POST /v1/collections/:id/sections/scan', () => {
  it('returns {results} of sections with their summary and document, best first, without chunk content', async () => {
    const res = await scan({ query: 'lighthouse lens' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['results']);
    const results = res.body.results;
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) {
      expect(Object.keys(r).sort()).toEqual(['document', 'score', 'section', 'span']); // span: issue 39
      expect(Object.keys(r.section).sort()).toEqual(['id', 'level', 'summary', 'title']);
      expect(Object.keys(r.document).sort()).toEqual(['filename', 'id']);
      expect(r.score).toBeGreaterThan(0);
    }
    descending(results.map((r: { score: number }) => r.score));
    expect(results[0].section.title).toBe('Fresnel lenses');
    expect(results[0].section.level).toBe(2);
    expect(results[0].section.summary).toMatch(/Fresnel lens/);
    expect(results[0].document).toEqual({ id: docs['lighthouses.md']!.id, filename: 'lighthouses.md' });
  });

  it('returns at most top_k sections and applies the filters', async () => {
    const all = (await scan({ query: 'ships storms snow lighthouse harbour glaciers' })).body.results;
    expect(all.length).toBeGreaterThan(2);
    expect((await scan({ query: 'ships storms snow lighthouse harbour glaciers', top_k: 2 })).body.results).toHaveLength(2);
    const inland = (await scan({ query: 'ships storms snow lighthouse harbour glaciers', tags: ['inland'] })).body.results;
    expect(new Set(inland.map((r: { document: { filename: string } }) => r.document.filename))).toEqual(new Set(['mountains.md']));
    const north = (await scan({ query: 'ships storms snow lighthouse harbour glaciers', metadata: { region: 'north' } })).body.results;
    expect(new Set(north.map((r: { document: { filename: string } }) => r.document.filename))).toEqual(new Set(['lighthouses.md']));
    const any = (await scan({ query: 'ships storms snow lighthouse harbour glaciers', anyTags: ['history', 'inland'] })).body.results;
    expect(new Set(any.map((r: { document: { filename: string } }) => r.document.filename))).toEqual(new Set(['lighthouses.md', 'mountains.md']));
  });
});

describe('GET /v1/sections/:id and /v1/sections/:id/chunks', () => {
  it('serves a section with content equal to its Markdown slice, and its chunks in order', async () => {
    const doc = docs['lighthouses.md']!;
    const md = (await t.request('GET', `/v1/documents/${doc.id}/markdown`)).body as string;
    const sections = (await t.request<Section[]>('GET', `/v1/documents/${doc.id}/sections`)).body;
    for (const s of sections) {
      const res = await t.request('GET', `/v1/sections/${s.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...s, content: md.slice(s.markdownOffsetStart, s.markdownOffsetEnd) });
      const chunks = await t.request('GET', `/v1/sections/${s.id}/chunks`);
      expect(chunks.status).toBe(200);
      expect(chunks.body).toHaveLength(s.chunkCount);
      expect(chunks.body.map((c: { position: number }) => c.position)).toEqual(chunks.body.map((_: unknown, i: number) => i));
      for (const ch of chunks.body) {
        expect(Object.keys(ch).sort()).toEqual(['content', 'id', 'position', 'span', 'tokenCount']);
        expect(res.body.content).toContain(ch.content);
      }
    }
  });

  it('orders many chunks of a long section by position', async () => {
    const c = await t.createCollection({ name: 'Long section', chunkSize: 64, chunkOverlap: 8 });
    const body = Array.from({ length: 80 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`).join(' ');
    const doc = await t.ingest(c.id, 'long.md', `# Long\n\n${body}\n`);
    const [section] = (await t.request<Section[]>('GET', `/v1/documents/${doc.id}/sections`)).body;
    const chunks = (await t.request('GET', `/v1/sections/${section!.id}/chunks`)).body;
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.map((ch: { position: number }) => ch.position)).toEqual(chunks.map((_: unknown, i: number) => i));
    expect(chunks[0].content).toMatch(/^# Long/);
    expect(chunks.at(-1).content).toMatch(/number 79/);
    for (const ch of chunks) expect(ch.tokenCount).toBeLessThanOrEqual(64);
  });

  it('answers a query hit with a chunk that its section lists', async () => {
    const [hit] = (await query({ q: 'glaciers carve valleys' })).body;
    const chunks = (await t.request('GET', `/v1/sections/${hit!.section.id}/chunks`)).body;
    expect(chunks).toContainEqual({ ...hit!.chunk, span: hit!.span });
  });
});

describe('hybrid search with an embedding model (deterministic test embedder)', () => {
  let hybrid: string;
  beforeAll(async () => {
    const c = await t.createCollection({ name: 'Hybrid', embeddingModel: embedder.model });
    expect(c.embeddingModel).toBe('fake-32');
    hybrid = c.id;
    const specs: [string, string, string[]][] = [
      ['lighthouses.md', LIGHTHOUSES, ['coast']],
      ['mountains.md', MOUNTAINS, ['inland']],
    ];
    for (const [name, text, tags] of specs) await t.ingest(hybrid, name, text, { tags });
  });

  it('embeds the chunks with the collection model and fuses lexical and vector ranks', async () => {
    expect(embedder.calls.flat().some((text) => text.includes('Fresnel'))).toBe(true);
    const res = await query({ q: 'lighthouse keepers lamp' }, hybrid);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-dossier-reranker')).toBe('none');
    expect(res.body[0]!.document.filename).toBe('lighthouses.md');
    descending(res.body.map((h) => h.score));
    // Reciprocal Rank Fusion of two lists with k = 60: no score can exceed 2 / 61.
    for (const h of res.body) expect(h.score).toBeLessThanOrEqual(2 / 61 + 1e-9);
    // Each hit says which lists found it and at what rank (issue 34); its fused score is the sum of 1 / (60 + rank).
    for (const h of res.body) {
      const ranks = [h.foundBy?.lexical, h.foundBy?.vector].filter((r): r is number => r !== undefined);
      expect(ranks.length, JSON.stringify(h.foundBy)).toBeGreaterThan(0);
      expect(h.score).toBeCloseTo(
        ranks.reduce((sum, r) => sum + 1 / (60 + r), 0),
        9,
      );
    }
    expect(res.body[0]!.foundBy).toEqual({ lexical: expect.any(Number), vector: expect.any(Number) });
  });

  it('finds chunks through the vector list alone when no word matches lexically', async () => {
    expect((await query({ q: 'qwertyuiop' })).body).toEqual([]); // lexical-only collection
    const res = await query({ q: 'qwertyuiop', limit: 50 }, hybrid);
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.map((h) => h.foundBy)).toEqual(res.body.map((_, i) => ({ vector: i + 1 }))); // no lexical match at all
    const filtered = await query({ q: 'qwertyuiop', limit: 50, tags: ['inland'] }, hybrid);
    expect(filenames(filtered.body)).toEqual(['mountains.md']);
  });
});

describe('query and scan input', () => {
  it('rejects a query without q and a scan without query with 400', async () => {
    expectError(await query({}), 400, /q/);
    expectError(await scan({}), 400, /query/);
  });
});
