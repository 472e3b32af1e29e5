import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHUNK_INDEX_SPEC_VERSION } from '../ports/chunk-index.ts';
import { DossierError } from '../domain/errors.ts';
import type { ChunkIndex, ChunkRow, SectionRow } from '../ports/chunk-index.ts';

const DIM = 4;

/** A unit-ish vector pointing mostly along axis `i`, tilted by `tilt` towards the next axis. */
export const axisVector = (i: number, tilt = 0, dim = DIM): Float32Array => {
  const v = new Float32Array(dim);
  v[i % dim] = 1;
  v[(i + 1) % dim] = tilt;
  return v;
};

let seq = 0;

/** A chunk row with defaults; `vector` defaults to an axis vector of width 4. */
export function chunkRow(over: Partial<ChunkRow> = {}): ChunkRow {
  seq += 1;
  return {
    id: randomUUID(),
    documentId: 'doc-1',
    sectionId: 'sec-1',
    position: seq,
    content: 'plain filler text',
    tokenCount: 3,
    sectionTitle: 'Untitled',
    sectionLevel: 1,
    vector: axisVector(0),
    tags: [],
    metadataPairs: [],
    canonical: true,
    charStart: 0,
    charEnd: 17,
    positions: null,
    ...over,
  };
}

export function sectionRow(over: Partial<SectionRow> = {}): SectionRow {
  return {
    id: randomUUID(),
    documentId: 'doc-1',
    title: 'Untitled',
    summary: 'nothing much',
    level: 1,
    tags: [],
    metadataPairs: [],
    canonical: true,
    ...over,
  };
}

interface Ctx {
  index: ChunkIndex;
  /** A fresh collection of dimension 4 (or `dimension`), created for this test. */
  collection(dimension?: number | null): Promise<string>;
  /** Upserts chunks into `col` and refreshes it. */
  put(col: string, rows: ChunkRow[]): Promise<void>;
}

const ids = (hits: { row: { id: string } }[]): string[] => hits.map((h) => h.row.id);
const sorted = (xs: string[]): string[] => [...xs].sort();

/**
 * Conformance suite for ChunkIndex adapters. `factory` returns an index fresh for each test (it may share
 * storage with other tests: every test works in its own new collection). The index is closed after each test.
 */
export function chunkIndexSuite(name: string, factory: () => Promise<ChunkIndex>): void {
  describe(`ChunkIndex conformance (spec ${CHUNK_INDEX_SPEC_VERSION}): ${name}`, () => {
    let index: ChunkIndex;
    beforeEach(async () => {
      index = await factory();
    });
    afterEach(async () => {
      await index.close();
    });
    const ctx: Ctx = {
      get index() {
        return index;
      },
      async collection(dimension: number | null = DIM) {
        const id = randomUUID();
        await index.createCollection(id, dimension);
        return id;
      },
      async put(col, rows) {
        await index.upsertChunks(col, rows);
        await index.refresh(col);
      },
    };
    lifecycleTests(ctx);
    textSearchTests(ctx);
    filterTests(ctx);
    upsertTests(ctx);
    vectorTests(ctx);
    errorTests(ctx);
    sectionTests(ctx);
    readTests(ctx);
    documentTests(ctx);
    queryRobustnessTests(ctx);
  });
}

function lifecycleTests(c: Ctx): void {
  it('createCollection is idempotent and keeps the rows already written', async () => {
    const col = await c.collection();
    await c.put(col, [chunkRow({ content: 'persistent walrus' })]);
    await c.index.createCollection(col, DIM);
    expect(await c.index.countChunks(col)).toBe(1);
    expect(ids(await c.index.searchText(col, 'walrus', { limit: 5 }))).toHaveLength(1);
  });

  it('declares its capabilities', () => {
    expect(c.index.capabilities).toEqual({
      fullText: expect.any(Boolean),
      vector: expect.any(Boolean),
      filters: expect.any(Boolean),
    });
  });

  it('dropCollection removes the collection, after which searching it throws missing_index', async () => {
    const col = await c.collection();
    await c.put(col, [chunkRow({ content: 'ephemeral heron' })]);
    await c.index.dropCollection(col);
    await expect(c.index.searchText(col, 'heron', { limit: 5 })).rejects.toMatchObject({ code: 'missing_index' });
    await expect(c.index.searchSections(col, 'heron', { limit: 5 })).rejects.toMatchObject({ code: 'missing_index' });
  });

  it('rows written after a refresh become searchable after the next refresh', async () => {
    const col = await c.collection();
    await c.put(col, [chunkRow({ content: 'first otter' })]);
    await c.put(col, [chunkRow({ content: 'second otter arrives' })]);
    expect(await c.index.searchText(col, 'otter', { limit: 10 })).toHaveLength(2);
    expect(await c.index.searchText(col, 'arrives', { limit: 10 })).toHaveLength(1);
  });

  it('sizeBytes is positive for a collection and grows as rows are written', async () => {
    const col = await c.collection();
    const before = await c.index.sizeBytes(col);
    await c.put(
      col,
      Array.from({ length: 20 }, (_, i) => chunkRow({ content: `bulk row number ${i} with some words` })),
    );
    expect(await c.index.sizeBytes(col)).toBeGreaterThan(before);
  });
}

function textSearchTests(c: Ctx): void {
  it('searchText finds a chunk by a word of its content, case-insensitively, with a positive score', async () => {
    const col = await c.collection();
    const hit = chunkRow({ content: 'The Zeppelin landed in Lakehurst' });
    await c.put(col, [hit, chunkRow({ content: 'an unrelated sentence about boats' })]);
    const hits = await c.index.searchText(col, 'zeppelin', { limit: 5 });
    expect(ids(hits)).toEqual([hit.id]);
    expect(hits[0]?.score).toBeGreaterThan(0);
    expect(hits[0]?.row).toMatchObject({ content: hit.content, documentId: 'doc-1' });
  });

  it('searchText also matches the section title of a chunk', async () => {
    const col = await c.collection();
    const hit = chunkRow({ sectionTitle: 'Photosynthesis', content: 'light reactions happen in membranes' });
    await c.put(col, [hit, chunkRow({ content: 'other text' })]);
    expect(ids(await c.index.searchText(col, 'photosynthesis', { limit: 5 }))).toEqual([hit.id]);
  });

  it('searchText ranks a chunk with more query words above one with fewer', async () => {
    const col = await c.collection();
    const both = chunkRow({ content: 'granite quarry near the river' });
    const one = chunkRow({ content: 'granite countertops for kitchens' });
    await c.put(col, [one, both, chunkRow({ content: 'filler words only' })]);
    const hits = await c.index.searchText(col, 'granite quarry', { limit: 5 });
    expect(ids(hits)).toEqual([both.id, one.id]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('searchText returns at most limit hits', async () => {
    const col = await c.collection();
    await c.put(
      col,
      Array.from({ length: 8 }, () => chunkRow({ content: 'repeated penguin text' })),
    );
    expect(await c.index.searchText(col, 'penguin', { limit: 3 })).toHaveLength(3);
  });

  it('searchPassageTexts, when offered, returns the hits of searchText in its order with their title and content', async () => {
    if (!c.index.searchPassageTexts) return;
    const col = await c.collection();
    const rows = [
      chunkRow({ sectionTitle: 'Lynx', content: 'the lynx hunts hares in deep snow, lynx tracks' }),
      chunkRow({ sectionTitle: 'Snow', content: 'snow falls on the taiga' }),
      chunkRow({ sectionTitle: 'Hares', content: 'hares turn white in winter', tags: ['hidden'] }),
      chunkRow({ content: 'nothing related here' }),
    ];
    await c.put(col, rows);
    for (const filter of [undefined, { tags: ['hidden'] }]) {
      const full = await c.index.searchText(col, 'lynx snow hares', { limit: 3, filter });
      const texts = await c.index.searchPassageTexts(col, 'lynx snow hares', { limit: 3, filter });
      expect(texts.map((h) => h.row.id)).toEqual(ids(full));
      expect(texts.map((h) => h.score)).toEqual(full.map((h) => h.score));
      expect(texts.map((h) => h.row.text)).toEqual(full.map((h) => `${h.row.sectionTitle}\n${h.row.content}`));
    }
    expect(await c.index.searchPassageTexts(col, 'lynx', { limit: 0 })).toEqual([]);
  });
}

function filterTests(c: Ctx): void {
  const rows = () => {
    const red = chunkRow({ content: 'shared keyword alpha', tags: ['red', 'big'], metadataPairs: ['lang="en"', 'year=2020'] });
    const blue = chunkRow({ content: 'shared keyword beta', tags: ['blue', 'big'], metadataPairs: ['lang="de"', 'year=2020'] });
    const plain = chunkRow({ content: 'shared keyword gamma', tags: [], metadataPairs: [] });
    return { red, blue, plain };
  };

  it('tags filter keeps rows carrying ALL tags, anyTags rows carrying at least one', async () => {
    const col = await c.collection();
    const { red, blue, plain } = rows();
    await c.put(col, [red, blue, plain]);
    const search = (filter: object) => c.index.searchText(col, 'shared keyword', { limit: 10, filter }).then(ids).then(sorted);
    expect(await search({ tags: ['big'] })).toEqual(sorted([red.id, blue.id]));
    expect(await search({ tags: ['big', 'red'] })).toEqual([red.id]);
    expect(await search({ tags: ['red', 'blue'] })).toEqual([]);
    expect(await search({ anyTags: ['red', 'blue'] })).toEqual(sorted([red.id, blue.id]));
    expect(await search({ anyTags: ['red', 'nope'] })).toEqual([red.id]);
    expect(await search({})).toEqual(sorted([red.id, blue.id, plain.id]));
  });

  it('metadataPairs filter keeps rows carrying ALL pairs, and the same filters apply to searchVector', async () => {
    const col = await c.collection();
    const { red, blue, plain } = rows();
    await c.put(col, [red, blue, plain]);
    const filter = { metadataPairs: ['year=2020', 'lang="de"'] };
    expect(ids(await c.index.searchText(col, 'keyword', { limit: 10, filter }))).toEqual([blue.id]);
    expect(ids(await c.index.searchVector(col, axisVector(0), { limit: 10, filter }))).toEqual([blue.id]);
    expect(ids(await c.index.searchVector(col, axisVector(0), { limit: 10, filter: { tags: ['red'] } }))).toEqual([red.id]);
  });

  it('non-canonical rows are hidden from text and vector search', async () => {
    const col = await c.collection();
    const dup = chunkRow({ content: 'duplicate marmot', canonical: false });
    const orig = chunkRow({ content: 'original marmot' });
    await c.put(col, [dup, orig]);
    expect(ids(await c.index.searchText(col, 'marmot', { limit: 10 }))).toEqual([orig.id]);
    expect(ids(await c.index.searchVector(col, axisVector(0), { limit: 10 }))).toEqual([orig.id]);
  });

  it('a filtered search still returns limit hits when that many rows match, however many better rows are filtered out', async () => {
    const col = await c.collection();
    const noise = Array.from({ length: 60 }, () => chunkRow({ content: 'needle needle needle', tags: ['noise'], vector: axisVector(1) }));
    const keep = Array.from({ length: 6 }, (_, i) =>
      chunkRow({ content: `needle among many other longer words here ${i}`, tags: ['keep'], vector: axisVector(2, 0.1 * i) }),
    );
    await c.put(col, [...noise, ...keep]);
    const filter = { tags: ['keep'] };
    const text = await c.index.searchText(col, 'needle', { limit: 5, filter });
    expect(text).toHaveLength(5);
    const kept = new Set(keep.map((r) => r.id));
    expect(text.every((h) => kept.has(h.row.id))).toBe(true);
    const vec = await c.index.searchVector(col, axisVector(1), { limit: 5, filter });
    expect(vec).toHaveLength(5);
    expect(vec.every((h) => kept.has(h.row.id))).toBe(true);
  });

  it('filter values containing quotes and backslashes are matched literally', async () => {
    const col = await c.collection();
    const odd = chunkRow({ content: 'quoted kestrel', tags: ["o'brien", 'back\\slash'], metadataPairs: ['name="a\'b"'] });
    const other = chunkRow({ content: 'quoted kestrel', tags: ['obrien'] });
    await c.put(col, [odd, other]);
    const search = (filter: object) => c.index.searchText(col, 'kestrel', { limit: 10, filter }).then(ids);
    expect(await search({ tags: ["o'brien"] })).toEqual([odd.id]);
    expect(await search({ anyTags: ['back\\slash'] })).toEqual([odd.id]);
    expect(await search({ metadataPairs: ['name="a\'b"'] })).toEqual([odd.id]);
    expect(await search({ tags: ["x') OR true OR ('"] })).toEqual([]);
  });
}

function upsertTests(c: Ctx): void {
  it('upsert replaces rows by id and leaves unrelated rows untouched', async () => {
    const col = await c.collection();
    const a = chunkRow({ content: 'original puffin words' });
    const b = chunkRow({ content: 'bystander puffin row' });
    await c.put(col, [a, b]);
    await c.put(col, [{ ...a, content: 'rewritten albatross words' }]);
    expect(await c.index.countChunks(col)).toBe(2);
    expect((await c.index.getChunks(col, [a.id]))[0]?.content).toBe('rewritten albatross words');
    expect(ids(await c.index.searchText(col, 'puffin', { limit: 10 }))).toEqual([b.id]);
    expect(ids(await c.index.searchText(col, 'albatross', { limit: 10 }))).toEqual([a.id]);
  });

  it('re-upserting the same rows does not change the count', async () => {
    const col = await c.collection();
    const rows = Array.from({ length: 5 }, (_, i) => chunkRow({ content: `row ${i}` }));
    await c.put(col, rows);
    await c.put(col, rows);
    expect(await c.index.countChunks(col)).toBe(5);
  });

  it('concurrent ingests of several documents into one collection all succeed', async () => {
    const col = await c.collection();
    const ingest = async (doc: string) => {
      const rows = Array.from({ length: 6 }, (_, i) => chunkRow({ id: `${doc}-${i}`, documentId: doc, content: `wombat ${doc}` }));
      await c.index.upsertChunks(col, rows);
      await c.index.upsertSections(col, [sectionRow({ documentId: doc })]);
      await c.index.refresh(col);
      await c.index.upsertChunks(col, rows.slice(0, 3));
      await c.index.deleteDocumentChunksExcept(
        col,
        doc,
        rows.slice(0, 3).map((r) => r.id),
      );
      await c.index.updateDocumentAttributes(col, doc, { tags: ['done'] });
      await c.index.refresh(col);
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => ingest(`d${i}`)));
    expect(await c.index.countChunks(col)).toBe(24);
    expect(await c.index.searchText(col, 'wombat', { limit: 50, filter: { tags: ['done'] } })).toHaveLength(24);
  });

  it('a fresh upsert (known-new ids) is searchable, shares commits with ordinary upserts, and a later upsert still replaces its rows', async () => {
    const col = await c.collection();
    const rows = Array.from({ length: 4 }, (_, i) => chunkRow({ documentId: 'fresh', content: `quokka ${i}` }));
    const other = chunkRow({ documentId: 'other', content: 'quokka other' });
    await Promise.all([c.index.upsertChunks(col, rows, { fresh: true }), c.index.upsertChunks(col, [other])]);
    await c.index.upsertSections(col, [sectionRow({ documentId: 'fresh', title: 'Quokka habitat' })], { fresh: true });
    await c.index.refresh(col);
    expect(await c.index.searchText(col, 'quokka', { limit: 10 })).toHaveLength(5);
    expect(await c.index.searchSections(col, 'quokka', { limit: 10 })).toHaveLength(1);
    await c.index.upsertChunks(
      col,
      rows.map((r) => ({ ...r, content: `wallaby ${r.position}` })),
    );
    await c.index.refresh(col);
    expect(await c.index.countChunks(col)).toBe(5);
    expect(await c.index.searchText(col, 'wallaby', { limit: 10 })).toHaveLength(4);
  });

  it('text search returns the best hits, not the first matches, for rows written since the last index build', async () => {
    const col = await c.collection();
    const padding = 'plain filler words '.repeat(30);
    const weak = Array.from({ length: 30 }, (_, i) => chunkRow({ content: `${padding} one numbat mention ${i}` }));
    const strong = chunkRow({ content: 'numbat numbat numbat habitat' });
    await c.index.upsertChunks(col, weak, { fresh: true });
    await c.index.upsertChunks(col, [strong], { fresh: true });
    await c.index.refresh(col);
    const hits = await c.index.searchText(col, 'numbat', { limit: 3 });
    expect(hits).toHaveLength(3);
    expect(hits[0]?.row.id).toBe(strong.id);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it('upserting empty arrays is a no-op', async () => {
    const col = await c.collection();
    await c.index.upsertChunks(col, []);
    await c.index.upsertSections(col, []);
    expect(await c.index.countChunks(col)).toBe(0);
  });
}

function vectorTests(c: Ctx): void {
  it('searchVector returns the nearest rows first with similarity scores descending (higher is better)', async () => {
    const col = await c.collection();
    const exact = chunkRow({ vector: axisVector(0) });
    const near = chunkRow({ vector: axisVector(0, 0.5) });
    const far = chunkRow({ vector: axisVector(2) });
    await c.put(col, [far, near, exact]);
    const hits = await c.index.searchVector(col, axisVector(0), { limit: 3 });
    expect(ids(hits)).toEqual([exact.id, near.id, far.id]);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(hits[1]!.score).toBeCloseTo(1 / Math.hypot(1, 0.5), 5);
    expect(hits[2]!.score).toBeCloseTo(0, 5);
    expect(hits.every((h) => !('vector' in h.row) || h.row.vector === null)).toBe(true);
  });

  it('a hit carries what a result shows: the chunk, its section title and level, its document', async () => {
    const col = await c.collection();
    const row = chunkRow({ content: 'the ibis wades', sectionTitle: 'Wading birds', sectionLevel: 3, position: 2, tokenCount: 4, vector: axisVector(0) });
    await c.put(col, [row]);
    const expected = {
      id: row.id,
      documentId: row.documentId,
      sectionId: row.sectionId,
      position: 2,
      content: 'the ibis wades',
      tokenCount: 4,
      sectionTitle: 'Wading birds',
      sectionLevel: 3,
    };
    expect((await c.index.searchText(col, 'ibis', { limit: 1 }))[0]!.row).toMatchObject(expected);
    expect((await c.index.searchVector(col, axisVector(0), { limit: 1 }))[0]!.row).toMatchObject(expected);
  });

  it('a lexical-only collection (dimension null) supports text search and refuses vectors', async () => {
    const col = await c.collection(null);
    const row = chunkRow({ content: 'lexical lemur', vector: null });
    await c.put(col, [row]);
    expect(ids(await c.index.searchText(col, 'lemur', { limit: 5 }))).toEqual([row.id]);
    await expect(c.index.upsertChunks(col, [chunkRow()])).rejects.toMatchObject({ code: 'dimension_mismatch' });
    await expect(c.index.searchVector(col, axisVector(0), { limit: 5 })).rejects.toMatchObject({ code: 'dimension_mismatch' });
  });
}

function errorTests(c: Ctx): void {
  it('a vector of the wrong width throws dimension_mismatch on upsert and on searchVector', async () => {
    const col = await c.collection();
    const bad = chunkRow({ vector: new Float32Array(DIM + 1) });
    const err = await c.index.upsertChunks(col, [chunkRow(), bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DossierError);
    expect(err).toMatchObject({ code: 'dimension_mismatch' });
    expect(await c.index.countChunks(col)).toBe(0);
    await expect(c.index.upsertChunks(col, [chunkRow({ vector: null })])).rejects.toMatchObject({ code: 'dimension_mismatch' });
    await expect(c.index.searchVector(col, new Float32Array(DIM - 1), { limit: 5 })).rejects.toMatchObject({
      code: 'dimension_mismatch',
    });
  });

  it('createCollection with a different dimension than the existing one throws dimension_mismatch', async () => {
    const col = await c.collection();
    await expect(c.index.createCollection(col, DIM * 2)).rejects.toMatchObject({ code: 'dimension_mismatch' });
  });

  it('every read and write on an unknown collection throws missing_index', async () => {
    const col = randomUUID();
    const o = { limit: 5 };
    const calls: (() => Promise<unknown>)[] = [
      () => c.index.searchText(col, 'x', o),
      () => c.index.searchVector(col, axisVector(0), o),
      () => c.index.searchSections(col, 'x', o),
      () => c.index.chunksOfSection(col, 'sec-1'),
      () => c.index.getChunks(col, ['a']),
      () => c.index.countChunks(col),
      () => c.index.upsertChunks(col, [chunkRow()]),
      () => c.index.refresh(col),
      () => c.index.sizeBytes(col),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ code: 'missing_index' });
  });
}

function sectionTests(c: Ctx): void {
  it('searchSections matches section titles and summaries, with filters and canonical rows only', async () => {
    const col = await c.collection();
    const byTitle = sectionRow({ title: 'Glacier retreat', summary: 'ice loss measured', tags: ['geo'] });
    const bySummary = sectionRow({ title: 'Chapter 2', summary: 'the glacier advanced in winter' });
    const hidden = sectionRow({ title: 'Glacier copy', canonical: false });
    await c.index.upsertSections(col, [byTitle, bySummary, hidden, sectionRow({ title: 'Intro' })]);
    await c.index.refresh(col);
    expect(sorted(ids(await c.index.searchSections(col, 'glacier', { limit: 10 })))).toEqual(sorted([byTitle.id, bySummary.id]));
    const filtered = await c.index.searchSections(col, 'glacier', { limit: 10, filter: { tags: ['geo'] } });
    expect(filtered.map((h) => h.row)).toEqual([byTitle]);
  });
}

function readTests(c: Ctx): void {
  it("chunksOfSection returns that section's chunks ordered by position, without vectors", async () => {
    const col = await c.collection();
    const rows = [3, 1, 2].map((position) => chunkRow({ sectionId: 'sec-a', position, content: `part ${position}` }));
    await c.put(col, [...rows, chunkRow({ sectionId: 'sec-b' })]);
    const got = await c.index.chunksOfSection(col, 'sec-a');
    expect(got.map((r) => r.position)).toEqual([1, 2, 3]);
    expect(got.every((r) => r.vector === null && r.sectionId === 'sec-a')).toBe(true);
  });

  it('getChunks returns the named rows in the order asked, skipping unknown ids, with every field but the vector', async () => {
    const col = await c.collection();
    const positions = '[[2,0.1,0.25,0.9,0.5]]';
    const a = chunkRow({ tags: ['t'], metadataPairs: ['k=1'], canonical: false, sectionTitle: 'S', tokenCount: 7, charStart: 120, charEnd: 480, positions });
    const b = chunkRow();
    await c.put(col, [a, b]);
    const got = await c.index.getChunks(col, [b.id, 'missing', a.id]);
    expect(got).toEqual([
      { ...b, vector: null },
      { ...a, vector: null },
    ]);
    expect(await c.index.getChunks(col, [])).toEqual([]);
  });

  it('countChunks counts one document or the whole collection', async () => {
    const col = await c.collection();
    await c.put(col, [chunkRow({ documentId: 'd1' }), chunkRow({ documentId: 'd1' }), chunkRow({ documentId: 'd2' })]);
    expect(await c.index.countChunks(col)).toBe(3);
    expect(await c.index.countChunks(col, 'd1')).toBe(2);
    expect(await c.index.countChunks(col, 'none')).toBe(0);
  });
}

function documentTests(c: Ctx): void {
  it('deleteDocument removes the chunks and sections of that document only', async () => {
    const col = await c.collection();
    await c.put(col, [chunkRow({ documentId: 'd1', content: 'doomed ibis' }), chunkRow({ documentId: 'd2', content: 'kept ibis' })]);
    await c.index.upsertSections(col, [sectionRow({ documentId: 'd1', title: 'ibis' }), sectionRow({ documentId: 'd2', title: 'ibis' })]);
    await c.index.deleteDocument(col, 'd1');
    await c.index.refresh(col);
    expect((await c.index.searchText(col, 'ibis', { limit: 10 })).map((h) => h.row.documentId)).toEqual(['d2']);
    expect((await c.index.searchSections(col, 'ibis', { limit: 10 })).map((h) => h.row.documentId)).toEqual(['d2']);
  });

  it("deleteDocumentChunksExcept removes the document's other chunks and nothing of other documents", async () => {
    const col = await c.collection();
    const keep = chunkRow({ documentId: 'd1' });
    await c.put(col, [keep, chunkRow({ documentId: 'd1' }), chunkRow({ documentId: 'd1' }), chunkRow({ documentId: 'd2' })]);
    await c.index.deleteDocumentChunksExcept(col, 'd1', [keep.id]);
    expect(await c.index.countChunks(col, 'd1')).toBe(1);
    expect(await c.index.countChunks(col, 'd2')).toBe(1);
    await c.index.deleteDocumentChunksExcept(col, 'd1', []);
    expect(await c.index.countChunks(col, 'd1')).toBe(0);
    expect(await c.index.countChunks(col, 'd2')).toBe(1);
  });

  it('deleteDocumentChunksExcept with keepSectionIds also removes the section rows a replaced document no longer has', async () => {
    const col = await c.collection();
    const kept = sectionRow({ documentId: 'd1', title: 'kept heron' });
    await c.index.upsertSections(col, [kept, sectionRow({ documentId: 'd1', title: 'stale heron' }), sectionRow({ documentId: 'd2', title: 'other heron' })]);
    await c.index.refresh(col);
    await c.index.deleteDocumentChunksExcept(col, 'd1', [], [kept.id]);
    const titles = (await c.index.searchSections(col, 'heron', { limit: 10 })).map((h) => h.row.title).sort();
    expect(titles).toEqual(['kept heron', 'other heron']);
  });

  it('updateDocumentAttributes changes which chunks and sections the filters match', async () => {
    const col = await c.collection();
    const row = chunkRow({ documentId: 'd1', content: 'mutable tapir', tags: ['old'] });
    await c.put(col, [row, chunkRow({ documentId: 'd2', content: 'mutable tapir', tags: ['old'] })]);
    await c.index.upsertSections(col, [sectionRow({ documentId: 'd1', title: 'tapir', tags: ['old'] })]);
    await c.index.updateDocumentAttributes(col, 'd1', { tags: ['new'], metadataPairs: ['k="v"'] });
    await c.index.refresh(col);
    const search = (filter: object) => c.index.searchText(col, 'tapir', { limit: 10, filter }).then((h) => h.map((x) => x.row.documentId));
    expect(await search({ tags: ['new'] })).toEqual(['d1']);
    expect(await search({ tags: ['old'] })).toEqual(['d2']);
    expect(await search({ metadataPairs: ['k="v"'] })).toEqual(['d1']);
    expect((await c.index.searchSections(col, 'tapir', { limit: 5, filter: { tags: ['new'] } })).length).toBe(1);
    await c.index.updateDocumentAttributes(col, 'd1', { canonical: false, tags: [] });
    await c.index.refresh(col);
    expect(await search({})).toEqual(['d2']);
    expect((await c.index.getChunks(col, [row.id]))[0]).toMatchObject({ tags: [], metadataPairs: ['k="v"'], canonical: false });
    await c.index.updateDocumentAttributes(col, ['d1', 'd2'], { canonical: true });
    await c.index.updateDocumentAttributes(col, [], { canonical: false });
    await c.index.refresh(col);
    expect((await search({})).sort()).toEqual(['d1', 'd2']);
  });
}

function queryRobustnessTests(c: Ctx): void {
  it('text queries with punctuation, operators or 500+ words do not throw', async () => {
    const col = await c.collection();
    const row = chunkRow({ content: 'BM25 ranking explained for beginners' });
    await c.put(col, [row]);
    const queries = [
      `what's "BM25"? (a OR b) -x`,
      'AND OR NOT',
      '"unterminated phrase',
      '+-~*?:^[]{}\\/!',
      'title:bm25',
      "'; DROP TABLE chunks; --",
      `${Array.from({ length: 600 }, (_, i) => `word${i}`).join(' ')} bm25`,
    ];
    for (const q of queries) {
      await expect(c.index.searchText(col, q, { limit: 5 })).resolves.toBeInstanceOf(Array);
      await expect(c.index.searchSections(col, q, { limit: 5 })).resolves.toBeInstanceOf(Array);
    }
    expect(ids(await c.index.searchText(col, queries[0]!, { limit: 5 }))).toEqual([row.id]);
    expect(ids(await c.index.searchText(col, queries.at(-1)!, { limit: 5 }))).toEqual([row.id]);
  });
}
