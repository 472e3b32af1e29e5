import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dossierContext } from '@dossier/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createDossier } from '../src/create-dossier.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-original-'));
  dirs.push(dir);
  return dir;
};
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe("a library upload's original file", () => {
  it('is hashed as it is uploaded when small, and by the pool thread that converts it when large', async () => {
    const dossier = await createDossier({ dataDir: newDataDir(), embeddingModel: 'none' });
    try {
      const local = await dossier.local();
      const collection = await local.collections.create({ name: 'hashes' });
      const small = new TextEncoder().encode('# Small\n\nA short note.\n');
      const large = new TextEncoder().encode(`# Large\n\n${'A line of a long report.\n'.repeat(40_000)}`);
      const smallDoc = await local.documents.upload(collection.id, { filename: 'small.md', bytes: small });
      const largeDoc = await local.documents.upload(collection.id, { filename: 'large.md', bytes: large });
      expect(smallDoc.contentHash).toBe(sha256(small));
      expect(largeDoc.contentHash).toBeNull(); // not hashed on the event loop
      await dossier.idle();
      expect(await local.documents.get(largeDoc.id)).toMatchObject({ status: 'ready', contentHash: sha256(large) });
    } finally {
      await dossier.close();
    }
  });

  it('makes its document `error`, saying to upload again, when the stored file is not the size uploaded (a power cut before the disk had it)', async () => {
    const dataDir = newDataDir();
    // Upload with no workers running, so the file can be cut short before it is converted.
    const uploader = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 0 } });
    const local = await uploader.local();
    const collection = await local.collections.create({ name: 'cut' });
    const doc = await local.documents.upload(collection.id, { filename: 'cut.md', bytes: new TextEncoder().encode('# Cut\n\nThis file loses its end.\n') });
    const storageKey = (await dossierContext(uploader).store.getDocument(doc.id))!.storageKey!;
    // The stored original loses its end (a small original is a row of blobs.db, a large one a file: cut through the store).
    const stored = await dossierContext(uploader).blobs.get(storageKey);
    await dossierContext(uploader).blobs.put(storageKey, stored.subarray(0, 6), { flush: false });
    await uploader.close();

    const worker = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 1, pollMs: 20 } });
    try {
      await worker.idle();
      const workerLocal = await worker.local();
      expect(await workerLocal.documents.get(doc.id)).toMatchObject({
        status: 'error',
        errorMessage: `The stored file has 6 bytes, not the ${doc.fileSizeBytes} uploaded (lost in a power cut?); upload it again`,
      });
      // A retry takes the stored file as it is now, with its size and hash.
      await workerLocal.documents.retry(doc.id);
      await worker.idle();
      expect(await workerLocal.documents.get(doc.id)).toMatchObject({
        status: 'ready',
        fileSizeBytes: 6,
        contentHash: sha256(new TextEncoder().encode('# Cut\n')),
      });
    } finally {
      await worker.close();
    }
  });
});
