import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { axisVector, chunkRow } from '@dossier/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createLanceChunkIndex } from '../src/lancedb/chunk-index.ts';

/**
 * Issue 13: one LanceDB directory shared by several processes (workers writing, API nodes reading). LanceDB commits
 * each version atomically and rebases compatible commits; the adapter retries the conflicting ones (all its writes are
 * idempotent) and reads the latest version on every search.
 */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const base = await mkdtemp(join(tmpdir(), 'dossier-lance-shared-'));
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Run the writer fixture in its own Node process; resolves with its exit code and output. */
async function writer(dir: string, collection: string, name: string, docs: number) {
  const script = fileURLToPath(new URL('./fixtures/lance-writer.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', TSX, script, dir, collection, name, String(docs)], { stdio: 'pipe' });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

describe('a chunk index shared by several processes', () => {
  it('keeps every row of two writer processes exactly once through racing edits and compactions, and a reader opened before them sees all of it', async () => {
    const dir = join(base, 'index');
    const collection = randomUUID();
    const reader = createLanceChunkIndex({ dir, optimizeInBackground: false, sharedWithOtherProcesses: true });
    try {
      await reader.createCollection(collection, 4);
      expect(await reader.countChunks(collection)).toBe(0); // the reader's table handle is now cached
      // The shared document exists before the writers start: both then upsert it and race edits on its rows, which
      // LanceDB detects as conflicts. (Two processes inserting the same new id at once both commit — LanceDB checks
      // concurrent changes to existing rows, not concurrent inserts of one key — and Dossier avoids that case:
      // a document's rows are written by the one worker holding its job's lease. See README, "The index".)
      const shared = Array.from({ length: 5 }, (_, n) =>
        chunkRow({ id: `shared-${n}`, documentId: 'shared', position: n, content: `sharedword chunk ${n}`, vector: axisVector(n % 4) }),
      );
      await reader.upsertChunks(collection, shared, { fresh: true });
      const results = await Promise.all(['north', 'south'].map((name) => writer(dir, collection, name, 6)));
      for (const r of results) expect(r, r.output).toMatchObject({ code: 0 });
      // 6 documents of 5 chunks per writer, plus the shared document upserted by both.
      expect(await reader.countChunks(collection)).toBe(2 * 6 * 5 + 5);
      expect(await reader.countChunks(collection, 'shared')).toBe(5);
      expect(await reader.countChunks(collection, 'north-0')).toBe(5);
      const ids = (await reader.searchText(collection, 'chunk', { limit: 200 })).map((h) => h.row.id);
      expect(ids).toHaveLength(65);
      expect(new Set(ids).size).toBe(65);
      expect(await reader.searchText(collection, 'southword', { limit: 100 })).toHaveLength(30);
      // Both writers edited the shared document's tags in rounds, racing; the last commit holds, whole, on every row.
      const edited = await reader.getChunks(
        collection,
        [0, 1, 2, 3, 4].map((n) => `shared-${n}`),
      );
      const tags = new Set(edited.map((c) => JSON.stringify(c.tags)));
      expect(tags.size).toBe(1);
      expect([['north-7'], ['south-7']]).toContainEqual(edited[0]!.tags);
    } finally {
      await reader.close();
    }
  });
});
