/**
 * Bring your own adapter (issue 10's composition seam): an embedded Dossier whose file storage is a BlobStore
 * of your own — here one that keeps every object in memory and counts what passes through it — while metadata,
 * the job queue and the index stay the embedded defaults. Any port (store, queue, index, blobs, events) can be
 * swapped the same way; each adapter should pass its port's conformance suite from `@dossier/core/testing`.
 *
 *   node --import tsx examples/custom-adapter.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';
import { type BlobStore, checkBlobKey, checkBlobPrefix, DossierError, notFound } from '@dossier/core';

/**
 * A BlobStore in memory: objects by key, and how many bytes were written. Keys are checked with the port's own
 * rules (checkBlobKey), as the conformance suite demands of every store.
 */
export function memoryBlobStore(): BlobStore & { written: number; keys(): string[] } {
  const objects = new Map<string, Uint8Array>();
  const keyOf = (key: string) => checkBlobKey(key).join('/');
  const prefixOf = (prefix: string) => `${checkBlobPrefix(prefix).join('/')}/`;
  const store = {
    written: 0,
    keys: () => [...objects.keys()],
    async put(key: string, data: Uint8Array) {
      objects.set(keyOf(key), new Uint8Array(data));
      store.written += data.byteLength;
    },
    async putStream(key: string, source: AsyncIterable<Uint8Array>, maxBytes: number) {
      keyOf(key);
      const parts: Uint8Array[] = [];
      let size = 0;
      for await (const part of source) {
        size += part.byteLength;
        if (size > maxBytes) throw new DossierError('payload_too_large', `Object ${key} is larger than ${maxBytes} bytes`);
        parts.push(part);
      }
      await store.put(key, Buffer.concat(parts));
      return size;
    },
    async get(key: string) {
      const found = objects.get(keyOf(key));
      if (!found) throw notFound(`Object ${key}`);
      return found;
    },
    stat: async (key: string) => {
      const found = objects.get(keyOf(key));
      return found ? { size: found.byteLength } : null;
    },
    delete: async (key: string) => void objects.delete(keyOf(key)),
    async deletePrefix(prefix: string) {
      const start = prefixOf(prefix);
      for (const key of objects.keys()) if (key.startsWith(start)) objects.delete(key);
    },
    async sizeOfPrefix(prefix: string) {
      const start = prefixOf(prefix);
      let total = 0;
      for (const [key, value] of objects) if (key.startsWith(start)) total += value.byteLength;
      return total;
    },
  };
  return store;
}

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

if (import.meta.url === `file://${process.argv[1]}`) {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-custom-adapter-'));
  run(dataDir)
    .then((result) => console.log(JSON.stringify(result)))
    .finally(() => rmSync(dataDir, { recursive: true, force: true }));
}
