import { type ChunkInput, chunkDocument, type DraftChunkRow } from '@dossier/core/chunking';
import { lowerThisThreadsPriority } from './lower-priority.ts';
import { type TaskReply, WARM_UP_MARKDOWN } from './worker-protocol.ts';

lowerThisThreadsPriority();

// The tokenizer's set-up paid while the thread starts (see convert-worker.ts), not by the first large document.
const warmUp = new TextEncoder().encode(WARM_UP_MARKDOWN);
chunkDocument({
  documentId: 'warm-up',
  markdown: warmUp,
  sections: [{ id: 'warm-up', position: 0, start: 0, end: warmUp.byteLength }],
  chunkSize: 64,
  chunkOverlap: 8,
});

/** Tokenize and window one document inside a worker thread. */
export default function chunk(input: ChunkInput): TaskReply<{ chunks: DraftChunkRow[] }> {
  try {
    return { ok: true, chunks: chunkDocument(input) };
  } catch (err) {
    return { ok: false, code: 'conversion_failed', message: `The document could not be chunked (${String((err as Error)?.message ?? err).slice(0, 200)})` };
  }
}
