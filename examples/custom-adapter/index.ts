/**
 * Bring your own adapter (issue 10's composition seam): an embedded Dossier whose file storage is a BlobStore
 * of your own (memory-blob-store.ts) while metadata, the job queue and the index stay the embedded defaults.
 * Any port (store, queue, index, blobs, events) can be swapped the same way; each adapter should pass its port's
 * conformance suite from `@dossier/core/testing` (custom-adapter.test.ts runs it on this one).
 *
 *   node --import tsx examples/custom-adapter/index.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDossier } from '@dossier/adapters';
import { memoryBlobStore } from './memory-blob-store.ts';

/** Ingest one note with the custom store and search it; returns what a caller would check. */
export async function run(dataDir: string): Promise<{ hits: string[]; storedObjects: number; bytesWritten: number }> {
  const blobs = memoryBlobStore();
  const dossier = await createDossier({ dataDir, embeddingModel: 'none', blobs });
  try {
    const local = await dossier.local();
    const collection = await local.collections.create({ name: 'in memory' });
    await local.documents.add(collection.id, { filename: 'note.md', bytes: new TextEncoder().encode('# Note\n\nFiles of this Dossier live in memory.\n') });
    await dossier.idle();
    const { results } = await local.search.query(collection.id, { q: 'memory' });
    return { hits: results.map((hit) => hit.document.filename), storedObjects: blobs.keys().length, bytesWritten: blobs.written };
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
