import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@lancedb/lancedb';
import { chunkRow, sectionRow, waitFor } from '@dossier/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createDossier } from '../src/create-dossier.ts';
import { createLanceChunkIndex } from '../src/lancedb/chunk-index.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/** What a search pays for, per table of the directory, read with LanceDB directly: fragments, and rows outside an index. */
async function shape(dir: string) {
  const db = await connect(dir);
  try {
    const tables: Record<string, { rows: number; fragments: number; smallFragments: number; unindexed: number }> = {};
    for (const name of await db.tableNames()) {
      const table = await db.openTable(name);
      const stats = await table.stats();
      let unindexed = 0;
      for (const index of await table.listIndices()) unindexed += (await table.indexStats(index.name))?.numUnindexedRows ?? 0;
      tables[name] = { rows: stats.numRows, fragments: stats.fragmentStats.numFragments, smallFragments: stats.fragmentStats.numSmallFragments, unindexed };
      table.close();
    }
    return tables;
  } finally {
    db.close();
  }
}

/** Every table folded and compacted: at most one fragment, no row outside an index. */
function expectOptimized(tables: Awaited<ReturnType<typeof shape>>, minTables: number) {
  expect(Object.keys(tables).length).toBeGreaterThanOrEqual(minTables);
  for (const [name, t] of Object.entries(tables)) {
    expect({ name, fragments: t.fragments, unindexed: t.unindexed }).toEqual({ name, fragments: Math.min(t.rows, 1), unindexed: 0 });
  }
}

describe('the embedded index is left optimized (issue 41)', () => {
  it('add → idle → close → reopen → query: idle() runs the pending optimize, so the saved tables are one fragment with every row indexed', async () => {
    const dataDir = tempDir('dossier-shape-');
    // A long quiet period: only idle() (not the timer) can have optimized the tables before close().
    const index = createLanceChunkIndex({ dir: join(dataDir, 'lancedb'), maintenance: { idleMs: 600_000, maxOps: 100_000 } });
    let collectionId = '';
    const first = await createDossier({ dataDir, embeddingModel: 'none', index, workers: { concurrency: 4, pollMs: 10 } });
    try {
      const local = await first.local();
      collectionId = (await local.collections.create({ name: 'shape' })).id;
      for (let i = 0; i < 30; i++) {
        const text = `# Note ${i}\n\nThe river number ${i} floods in spring when the glacier melts. Salmon run ${i}.\n`;
        const doc = await local.documents.add(collectionId, { filename: `note-${i}.md`, bytes: new TextEncoder().encode(text) });
        // Writes in several commits: every third note is indexed before the next ones arrive.
        if (i % 3 === 0) await waitFor(async () => (await local.documents.get(doc.id)).status === 'ready', `note ${i} to be indexed`);
      }
      await first.idle();
      expectOptimized(await shape(join(dataDir, 'lancedb')), 2);
    } finally {
      await first.close();
    }
    const saved = await shape(join(dataDir, 'lancedb'));
    expectOptimized(saved, 2);
    expect(Object.values(saved).some((t) => t.rows >= 30)).toBe(true);

    const second = await createDossier({ dataDir, embeddingModel: 'none' });
    try {
      const { results } = await (await second.local()).search.query(collectionId, { q: 'glacier melts river floods', limit: 5 });
      expect(results).toHaveLength(5);
      await second.idle();
      expectOptimized(await shape(join(dataDir, 'lancedb')), 2); // nothing for the reopened process to do
    } finally {
      await second.close();
    }
  });

  it('close() runs the optimize it would have cancelled', async () => {
    const dir = join(tempDir('dossier-shape-close-'), 'lancedb');
    const index = createLanceChunkIndex({ dir, maintenance: { idleMs: 600_000, maxOps: 100_000 }, commitPacing: { minIntervalMs: 0 } });
    await index.createCollection('c1', null);
    for (let i = 0; i < 12; i++) await index.upsertChunks('c1', [chunkRow({ documentId: `d${i}`, content: `walrus ${i}`, vector: null })], { fresh: true });
    const before = await shape(dir);
    expect(before.chunks_c1?.fragments).toBeGreaterThan(1);
    expect(before.chunks_c1?.unindexed).toBeGreaterThan(0);
    await index.close();
    expectOptimized(await shape(dir), 2);
  });

  it('opening a directory left unoptimized (a process killed, or one not optimizing) checks its tables and optimizes them', async () => {
    const dir = join(tempDir('dossier-shape-open-'), 'lancedb');
    const writer = createLanceChunkIndex({ dir, optimizeInBackground: false, commitPacing: { minIntervalMs: 0 } });
    await writer.createCollection('c2', null);
    for (let i = 0; i < 12; i++) {
      await writer.upsertChunks('c2', [chunkRow({ documentId: `d${i}`, content: `narwhal ${i}`, vector: null })], { fresh: true });
      await writer.upsertSections('c2', [sectionRow({ documentId: `d${i}`, title: `narwhal ${i}` })], { fresh: true });
    }
    await writer.close();
    const left = await shape(dir);
    expect(left.chunks_c2?.fragments).toBeGreaterThan(1);
    expect(left.sections_c2?.unindexed).toBeGreaterThan(0);

    const reopened = createLanceChunkIndex({ dir });
    try {
      await reopened.settle(); // the check at open scheduled both tables; settle runs them now
      expectOptimized(await shape(dir), 2);
      expect(await reopened.searchText('c2', 'narwhal', { limit: 20 })).toHaveLength(12);
    } finally {
      await reopened.close();
    }
  });
});
