import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { Schema } from 'apache-arrow';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { axisVector, chunkIndexSuite, chunkRow, waitFor } from '@dossier/core/testing';
import { createLanceChunkIndex } from '../src/lancedb/chunk-index.ts';
import { chunkSchema } from '../src/lancedb/schema.ts';

const base = await mkdtemp(join(tmpdir(), 'dossier-lance-'));

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

// Every test of the suite uses its own collection, so all of them share one database directory.
chunkIndexSuite('lancedb', async () => createLanceChunkIndex({ dir: join(base, 'shared') }));

describe('LanceDB ChunkIndex specifics', () => {
  const dir = join(base, 'specific');
  const index = createLanceChunkIndex({ dir });
  afterEach(async () => {
    await index.close();
  });

  /** The FTS index state of a table, read with LanceDB directly. */
  async function ftsState(table: string) {
    const db = await connect(dir);
    const indices = await (await db.openTable(table)).listIndices();
    db.close();
    return indices.filter((i) => i.indexType === 'FTS').map((i) => ({ columns: i.columns, unindexed: i.numUnindexedRows }));
  }

  it('text search sees rows written after the full-text index was built, and background maintenance folds them in once writes go quiet', async () => {
    const col = randomUUID();
    await index.createCollection(col, 4);
    await index.upsertChunks(col, [chunkRow({ content: 'unindexed narwhal' })]);
    await index.refresh(col);
    expect(await index.searchText(col, 'narwhal', { limit: 5 })).toHaveLength(1);
    const table = `chunks_${col.replaceAll('-', '')}`;
    await waitFor(async () => (await ftsState(table))[0]?.unindexed === 0, 'the full-text index to cover every row', 15_000);
    await index.upsertChunks(col, [chunkRow({ content: 'late narwhal' })]);
    expect(await index.searchText(col, 'narwhal', { limit: 5 })).toHaveLength(2);
  });

  it('stores one chunk and one section table per collection, named from the id without dashes', async () => {
    const col = randomUUID();
    await index.createCollection(col, null);
    const key = col.replaceAll('-', '');
    const names = await readdir(dir);
    expect(names).toEqual(expect.arrayContaining([`chunks_${key}.lance`, `sections_${key}.lance`]));
    await index.dropCollection(col);
    expect((await readdir(dir)).filter((n) => n.includes(key))).toEqual([]);
  });

  it('lexical-only chunk tables have no vector column; others a fixed-size float32 list of the dimension', async () => {
    const lexical = randomUUID();
    const dense = randomUUID();
    await index.createCollection(lexical, null);
    await index.createCollection(dense, 3);
    const db = await connect(dir);
    const fields = async (col: string) => (await (await db.openTable(`chunks_${col.replaceAll('-', '')}`)).schema()).fields;
    expect((await fields(lexical)).map((f) => f.name)).not.toContain('vector');
    expect(String((await fields(dense)).find((f) => f.name === 'vector')?.type)).toBe('FixedSizeList[3]<Float32>');
    db.close();
  });

  it('English analysis: lowercase, stemming, stop words and accent folding', async () => {
    const col = randomUUID();
    await index.createCollection(col, 4);
    const run = chunkRow({ content: 'She RUNS every morning' });
    const cafe = chunkRow({ content: 'Meet me at the Café' });
    await index.upsertChunks(col, [run, cafe, chunkRow({ content: 'the and of a' })]);
    await index.refresh(col);
    const ids = async (q: string) => (await index.searchText(col, q, { limit: 5 })).map((h) => h.row.id);
    expect(await ids('running')).toEqual([run.id]);
    expect(await ids('cafe')).toEqual([cafe.id]);
    expect(await ids('the')).toEqual([]);
  });

  it('refuses a collection id that cannot name a table with invalid_input', async () => {
    await expect(index.createCollection('../escape', 4)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(index.searchText('a b', 'x', { limit: 1 })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('an open index sees rows another index instance (another process) wrote to the same directory', async () => {
    const col = randomUUID();
    await index.createCollection(col, 4);
    await index.upsertChunks(col, [chunkRow({ content: 'first gecko' })]);
    expect(await index.countChunks(col)).toBe(1); // caches the table handle
    const writer = createLanceChunkIndex({ dir });
    await writer.upsertChunks(col, [chunkRow({ content: 'second gecko' })]);
    await writer.refresh(col);
    await writer.close();
    expect(await index.countChunks(col)).toBe(2);
    expect(await index.searchText(col, 'gecko', { limit: 5 })).toHaveLength(2);
  });

  it('works again after close(), reopening the database lazily', async () => {
    const col = randomUUID();
    await index.createCollection(col, 4);
    await index.upsertChunks(col, [chunkRow({ vector: axisVector(1) })]);
    await index.close();
    expect(await index.countChunks(col)).toBe(1);
    expect(await index.searchVector(col, axisVector(1), { limit: 1 })).toHaveLength(1);
  });
});

describe('LanceDB ChunkIndex: rows its full-text index has not absorbed yet', () => {
  const padding = 'plain filler words '.repeat(30);
  const weak = (n: number, documentId = 'weak') =>
    Array.from({ length: n }, (_, i) => chunkRow({ documentId, content: `${padding} one numbat mention ${i}`, vector: null }));

  /**
   * The ids of a limit-3 search, checked to score as the top 3 of a search deep enough to take every row (the weak
   * rows tie): a flat scan of unindexed rows cut at a count too low would return the first matches it met instead.
   */
  async function top3(index: ReturnType<typeof createLanceChunkIndex>, col: string): Promise<string[]> {
    const hits = await index.searchText(col, 'numbat', { limit: 3 });
    const all = await index.searchText(col, 'numbat', { limit: 1000 });
    expect(hits.map((h) => h.score)).toEqual(all.slice(0, 3).map((h) => h.score));
    return hits.map((h) => h.row.id);
  }

  /** The full-text index's unindexed rows, as LanceDB itself counts them. */
  async function lanceUnindexed(dir: string, col: string): Promise<number> {
    const db = await connect(dir);
    const stats = await (await db.openTable(`chunks_${col.replaceAll('-', '')}`)).indexStats('text_idx');
    db.close();
    return stats?.numUnindexedRows ?? 0;
  }

  it('counts them from its own appends, merges, edits, deletes and optimize, so a small limit returns the best rows after each', async () => {
    const dir = join(base, 'unindexed');
    const index = createLanceChunkIndex({ dir, optimizeInBackground: false });
    const col = randomUUID();
    await index.createCollection(col, null);
    expect(await index.searchText(col, 'numbat', { limit: 3 })).toEqual([]); // count known from here on: 0
    await index.upsertChunks(col, weak(30), { fresh: true });
    const strong = chunkRow({ documentId: 'strong', content: 'numbat numbat habitat', vector: null });
    await index.upsertChunks(col, [strong]); // a merge by id
    expect(await top3(index, col)).toContain(strong.id);
    expect(await lanceUnindexed(dir, col)).toBe(31);
    await index.updateDocumentAttributes(col, 'strong', { tags: ['edited'] }); // rewrites the row outside the index
    expect(await top3(index, col)).toContain(strong.id);
    await index.optimize(col);
    expect(await lanceUnindexed(dir, col)).toBe(0);
    expect(await top3(index, col)).toContain(strong.id);
    const stronger = chunkRow({ documentId: 'stronger', content: 'numbat numbat numbat', vector: null });
    await index.upsertChunks(col, [...weak(20, 'weak-2'), stronger], { fresh: true });
    expect(await top3(index, col)).toContain(stronger.id);
    await index.deleteDocument(col, 'stronger');
    expect(await top3(index, col)).not.toContain(stronger.id);
    await index.close();
  });

  it('shared with other processes, asks LanceDB on every search, so rows another writer added rank too', async () => {
    const dir = join(base, 'unindexed-shared');
    const reader = createLanceChunkIndex({ dir, optimizeInBackground: false, sharedWithOtherProcesses: true });
    const col = randomUUID();
    await reader.createCollection(col, null);
    expect(await reader.searchText(col, 'numbat', { limit: 3 })).toEqual([]);
    const writer = createLanceChunkIndex({ dir, optimizeInBackground: false });
    const strong = chunkRow({ content: 'numbat numbat habitat', vector: null });
    await writer.upsertChunks(col, weak(30), { fresh: true });
    await writer.upsertChunks(col, [strong], { fresh: true });
    await writer.close();
    expect(await top3(reader, col)).toContain(strong.id);
    await reader.close();
  });
});

describe('LanceDB ChunkIndex on a table of the older layout', () => {
  it('writes and reads a chunk table created before rows carried the section level and their span, reading them as null', async () => {
    const dir = join(base, 'older');
    const col = randomUUID();
    const db = await connect(dir);
    const current = chunkSchema(arrow, null);
    const later = ['section_level', 'char_start', 'char_end', 'positions'];
    await db.createEmptyTable(`chunks_${col.replaceAll('-', '')}`, new Schema(current.fields.filter((f) => !later.includes(f.name))));
    db.close();
    const index = createLanceChunkIndex({ dir });
    await index.createCollection(col, null);
    const row = chunkRow({ content: 'vintage otter', vector: null, positions: '[[1,0,0,1,1]]' });
    await index.upsertChunks(col, [row]);
    const { vector: _v, tags: _t, metadataPairs: _m, canonical: _c, ...hit } = row;
    const unknown = { sectionLevel: null, charStart: null, charEnd: null, positions: null };
    expect((await index.searchText(col, 'otter', { limit: 5 })).map((h) => h.row)).toEqual([{ ...hit, ...unknown }]);
    expect((await index.getChunks(col, [row.id]))[0]?.sectionLevel).toBeNull();
    await index.close();
  });
});

describe('LanceDB ChunkIndex storage once writes go quiet', () => {
  it('compacts the fragments of many small writes into one and removes the replaced versions and their files', async () => {
    const dir = join(base, 'settle');
    const index = createLanceChunkIndex({ dir, maintenance: { idleMs: 500, maxOps: 1000, retainMs: 200 } });
    const col = randomUUID();
    const folder = join(dir, `chunks_${col.replaceAll('-', '')}.lance`);
    await index.createCollection(col, null);
    for (let i = 0; i < 30; i++) await index.upsertChunks(col, [chunkRow({ content: `settling walrus ${i}`, vector: null })], { fresh: true });
    const files = async (sub: string) => (await readdir(join(folder, sub))).filter((n) => !n.endsWith('.json'));
    expect((await files('data')).length).toBeGreaterThan(1); // one fragment per write, until maintenance runs
    await waitFor(async () => (await files('data')).length === 1 && (await files('_versions')).length === 1, 'one fragment and one version', 30_000);
    expect(await index.searchText(col, 'walrus', { limit: 50 })).toHaveLength(30);
    await index.close();
  });
});

describe('LanceDB ChunkIndex indexes for large tables', () => {
  const dir = join(base, 'indexes');

  async function indexTypes(table: string) {
    const db = await connect(dir);
    const indices = await (await db.openTable(table)).listIndices();
    db.close();
    return Object.fromEntries(indices.map((i) => [i.columns.join(','), i.indexType]));
  }

  it('indexes the canonical flag for the search prefilter, and gives vectors an IVF_PQ index once past the row threshold', async () => {
    const index = createLanceChunkIndex({ dir, vectorIndexMinRows: 600, maintenance: { idleMs: 50, maxOps: 1000 } });
    const col = randomUUID();
    const table = `chunks_${col.replaceAll('-', '')}`;
    await index.createCollection(col, 16);
    expect(await indexTypes(table)).toMatchObject({ text: 'FTS', canonical: 'Bitmap' });
    let s = 7;
    const rnd = () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32 - 0.5;
    };
    const rows = Array.from({ length: 700 }, (_, i) => chunkRow({ content: `row ${i}`, vector: Float32Array.from({ length: 16 }, rnd) }));
    await index.upsertChunks(col, rows);
    await waitFor(async () => (await indexTypes(table)).vector === 'IvfPq', 'an IVF_PQ vector index', 60_000);
    const target = rows[123]!;
    const hits = await index.searchVector(col, target.vector!, { limit: 3 });
    expect(hits[0]?.row.id).toBe(target.id); // exact re-ranking (refine factor) puts the row itself first
    expect(hits[0]?.score).toBeCloseTo(1, 3);
    await index.close();
  });
});
