import type { ChunkingRunner, ChunkInput, DraftChunkRow } from '@dossier/core';
import { createTaskPool, type TaskPoolOptions } from './task-pool.ts';

/** Limits of the chunking pool (one thread by default; 2 minutes and 1 GB per document). */
export type ChunkingPoolOptions = TaskPoolOptions;

/**
 * A ChunkingRunner backed by its own piscina pool, apart from conversion, so tokenizing one document never waits
 * behind a slow conversion. The Markdown bytes are moved to the thread, not copied.
 */
export async function createChunkingPool(opts: ChunkingPoolOptions = {}): Promise<{ run: ChunkingRunner; threads(): number; close(): Promise<void> }> {
  const pool = await createTaskPool<ChunkInput, { chunks: DraftChunkRow[] }>(
    { worker: 'chunk-worker', callerUrl: import.meta.url, label: 'Chunking' },
    { timeoutMs: 120_000, ...opts },
  );
  return {
    run: async (input) => {
      // A private copy of the bytes is moved, so the caller's buffer stays usable.
      const markdown = input.markdown.slice();
      return (await pool.run({ ...input, markdown }, [markdown.buffer as ArrayBuffer])).chunks;
    },
    threads: pool.threads,
    close: pool.close,
  };
}
