/**
 * A BlobStore of your own (issue 10's composition seam): every object in memory, with a count of the bytes
 * written. It passes the port's conformance suite from the test kit (`blobStoreSuite` of `@dossier/core/testing`,
 * see custom-adapter.test.ts), which is how an adapter author checks an adapter before plugging it in.
 */
import { type BlobStore, checkBlobKey, checkBlobPrefix, DossierError, notFound } from '@dossier/core';

/** The BlobStore contract this store was written against: compare with BLOB_STORE_SPEC_VERSION when upgrading. */
export const WRITTEN_FOR_BLOB_STORE_SPEC = '2.0.0';

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
    async move(fromKey: string, toKey: string) {
      const [from, to] = [keyOf(fromKey), keyOf(toKey)];
      const found = objects.get(from);
      if (!found) throw notFound(`Object ${fromKey}`);
      objects.delete(from);
      objects.set(to, found);
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
