import { type ChunkInput, chunkDocument, type DraftChunkRow } from '@dossier/core';
import type { TaskReply } from './task-pool.ts';

/** Tokenize and window one document inside a worker thread. */
export default function chunk(input: ChunkInput): TaskReply<{ chunks: DraftChunkRow[] }> {
  try {
    return { ok: true, chunks: chunkDocument(input) };
  } catch (err) {
    return { ok: false, code: 'conversion_failed', message: `The document could not be chunked (${String((err as Error)?.message ?? err).slice(0, 200)})` };
  }
}
