/**
 * Bring your own adapter (issue 10's composition seam): an embedded Dossier whose file storage is a BlobStore
 * of your own (memory-blob-store.ts) while metadata, the job queue and the index stay the embedded defaults.
 * Any port (store, queue, index, blobs, events) can be swapped the same way; each adapter should pass its port's
 * conformance suite from `@dossier/core/testing` (custom-adapter.test.ts runs it on this one).
 *
 * One part of the metadata can be swapped too, without writing the others (issue 35): `stores: { idempotency }`
 * serves Idempotency-Keys from memory-idempotency-store.ts while everything else stays in SQLite.
 *
 *   node --import tsx examples/custom-adapter/index.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDossier } from '@dossier/adapters';
import { memoryBlobStore } from './memory-blob-store.ts';
import { memoryIdempotencyStore } from './memory-idempotency-store.ts';

/** What the example's run saw: search hits, where files went, and where the idempotency key went. */
export interface RunResult {
  hits: string[];
  storedObjects: number;
  bytesWritten: number;
  /** The second request with the same Idempotency-Key: replayed from the custom store. */
  retried: { kind: string; body?: string };
  idempotencyKeys: number;
}

/** Ingest one note with the custom stores and search it; returns what a caller would check. */
export async function run(dataDir: string): Promise<RunResult> {
  const blobs = memoryBlobStore();
  const idempotency = memoryIdempotencyStore();
  const dossier = await createDossier({ dataDir, embeddingModel: 'none', blobs, stores: { idempotency } });
  try {
    const local = await dossier.local();
    const collection = await local.collections.create({ name: 'in memory' });
    await local.documents.add(collection.id, { filename: 'note.md', bytes: new TextEncoder().encode('# Note\n\nFiles of this Dossier live in memory.\n') });
    await dossier.idle();
    const { results } = await local.search.query(collection.id, { q: 'memory' });
    // What the HTTP server does with an Idempotency-Key: the first request runs and its answer is kept; a retry replays it.
    await dossier.idempotency.begin('caller', 'upload-1', 'POST /documents note.md');
    await dossier.idempotency.finish('caller', 'upload-1', 201, JSON.stringify({ id: collection.id }));
    const retried = await dossier.idempotency.begin('caller', 'upload-1', 'POST /documents note.md');
    return {
      hits: results.map((hit) => hit.document.filename),
      storedObjects: blobs.keys().length,
      bytesWritten: blobs.written,
      retried,
      idempotencyKeys: idempotency.records().length,
    };
  } finally {
    await dossier.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-custom-adapter-'));
  run(dataDir)
    .then((result) => console.log(JSON.stringify(result)))
    .finally(() => rmSync(dataDir, { recursive: true, force: true }));
}
