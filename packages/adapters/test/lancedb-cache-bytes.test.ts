import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkRow } from '@dossier/core/testing';
import { createLanceChunkIndex } from '../src/lancedb/chunk-index.ts';
import { DEFAULT_CACHE_BYTES, LanceTables } from '../src/lancedb/tables.ts';

const base = await mkdtemp(join(tmpdir(), 'dossier-lance-cache-'));
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const words = ['narwhal', 'glacier', 'protein', 'lattice', 'membrane', 'orbit', 'quartz', 'tundra', 'voltage', 'enzyme'];

/** A collection of 40 commits of 25 chunks each, optimized, so reading it fills LanceDB's caches. */
async function populated(dir: string): Promise<string> {
  const index = createLanceChunkIndex({ dir, optimizeInBackground: false });
  const col = randomUUID();
  await index.createCollection(col, null);
  for (let commit = 0; commit < 40; commit++) {
    const rows = Array.from({ length: 25 }, (_, i) => chunkRow({ content: `${words[(commit + i) % 10]} ${words[i % 10]} row ${commit}-${i}`, vector: null }));
    await index.upsertChunks(col, rows, { fresh: true });
  }
  await index.optimize(col);
  await index.close();
  return `chunks_${col.replaceAll('-', '')}`;
}

/** Reads the table through `tables` (open, count, full-text and filtered searches) and returns the cache bytes then in use. */
async function cacheAfterReads(tables: LanceTables, table: string): Promise<number> {
  const h = await tables.open(table);
  expect(await h.table.countRows()).toBe(1000);
  for (const word of words) {
    const hits = await h.table.query().fullTextSearch(word, { columns: 'text' }).limit(5).toArrow();
    expect(hits.numRows).toBeGreaterThan(0);
  }
  await h.table.query().where("document_id = 'doc-1'").limit(5).toArrow();
  const used = await tables.cacheBytesInUse();
  await tables.close();
  return used;
}

describe('LanceDB cache sizes', () => {
  it('the connection uses the session of the configured sizes: the caches fill up to the cap and stop there', async () => {
    const dir = join(base, 'caps');
    const table = await populated(dir);
    const generous = await cacheAfterReads(new LanceTables(dir, 0, false, undefined, DEFAULT_CACHE_BYTES), table);
    expect(generous).toBeGreaterThan(0);
    const capped = await cacheAfterReads(
      new LanceTables(dir, 0, false, undefined, { index: Math.floor(generous / 8), metadata: Math.floor(generous / 8) }),
      table,
    );
    expect(capped).toBeLessThan(generous / 2);
    expect(generous).toBeLessThan(DEFAULT_CACHE_BYTES.index + DEFAULT_CACHE_BYTES.metadata);
  });
});
