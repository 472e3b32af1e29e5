import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChunkIndex, DossierError } from '@dossier/core';
import { dossierContext, waitFor } from '@dossier/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createDossier } from '../src/create-dossier.ts';
import { createLanceChunkIndex } from '../src/lancedb/chunk-index.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real LanceDB index whose section writes fail `failures` times with a retryable error, recording the order of writes. */
function flakyIndex(dir: string, failures: number): { index: ChunkIndex; writes: string[] } {
  const real = createLanceChunkIndex({ dir });
  const writes: string[] = [];
  let left = failures;
  const index: ChunkIndex = {
    ...real,
    async upsertSections(collectionId, rows, o) {
      writes.push('sections');
      if (left-- > 0) throw new DossierError('unavailable', 'the section table is busy', { retryable: true });
      await real.upsertSections(collectionId, rows, o);
    },
    async upsertChunks(collectionId, rows, o) {
      writes.push(`chunks fresh=${o?.fresh ?? false}`);
      await real.upsertChunks(collectionId, rows, o);
    },
  };
  return { index, writes };
}

describe('chunk rows of a lexical collection sent with its sections', () => {
  it('starts them beside the section rows, and a retry after a failed section write leaves each chunk once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-early-chunks-'));
    dirs.push(dataDir);
    const { index, writes } = flakyIndex(join(dataDir, 'lancedb'), 1);
    const dossier = await createDossier({ dataDir, embeddingModel: 'none', index, workers: { concurrency: 1, pollMs: 20 } });
    try {
      const local = await dossier.local();
      const collection = await local.collections.create({ name: 'early' });
      const body = Array.from({ length: 3 }, (_, i) => `## Part ${i}\n\n${'Oxygen saturation in alpine lakes varies by season. '.repeat(80)}`).join('\n\n');
      const doc = await local.documents.add(collection.id, { filename: 'lakes.md', bytes: new TextEncoder().encode(`# Lakes\n\n${body}`) });
      // The failed attempt is retried after the job runner's backoff (about a second).
      const ready = await waitFor(
        async () => {
          const current = await local.documents.get(doc.id);
          return current.status === 'ready' && current;
        },
        'the document to be ready after the retry',
        15_000,
      );
      expect(ready.status).toBe('ready');
      // First attempt: the chunk rows went out beside the sections (appended: nothing of this document was indexed),
      // and the section write failed. The retry wrote the same chunk ids again, merging.
      expect(writes.slice(0, 2).sort()).toEqual(['chunks fresh=true', 'sections']);
      expect(writes.slice(2).sort()).toEqual(['chunks fresh=false', 'sections']);
      expect(await index.countChunks(collection.id, doc.id)).toBe(ready.chunkCount);
      // Each section's chunk count was saved with the section (the worker had chunked it), and adds up.
      const sections = await dossierContext(dossier).store.listSections(doc.id);
      expect(sections.every((section) => section.chunkCount > 0)).toBe(true);
      expect(sections.reduce((n, section) => n + section.chunkCount, 0)).toBe(ready.chunkCount);
      const hits = await local.search.query(collection.id, { q: 'oxygen alpine lakes season', limit: 50 });
      const ids = hits.results.map((h) => h.chunk.id);
      expect(ids.length).toBe(ready.chunkCount);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await dossier.close();
    }
  });
});
