import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOB_STORE_SPEC_VERSION } from '@dossier/core';
import { blobStoreSuite, idempotencyStoreTests } from '@dossier/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './index.ts';
import { memoryBlobStore, WRITTEN_FOR_BLOB_STORE_SPEC } from './memory-blob-store.ts';
import { memoryIdempotencyStore } from './memory-idempotency-store.ts';

/**
 * Issue 10's seam: createDossier takes adapters of your own (the example's in-memory BlobStore), the rest embedded;
 * the adapter passes the test kit's conformance suite for its port.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

blobStoreSuite('the custom-adapter example', async () => memoryBlobStore());

describe("the custom-adapter example's IdempotencyStore (one part of the metadata, issue 35)", () => {
  const store = memoryIdempotencyStore();
  idempotencyStoreTests(() => store);
});

describe('examples/custom-adapter', () => {
  it('was written for the major version of the BlobStore contract this Dossier has', () => {
    expect(WRITTEN_FOR_BLOB_STORE_SPEC.split('.')[0]).toBe(BLOB_STORE_SPEC_VERSION.split('.')[0]);
  });

  it("ingests and searches with its own BlobStore, and writes no file under the data directory's blobs", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-seam-'));
    dirs.push(dataDir);
    const result = await run(dataDir);
    expect(result.hits).toEqual(['note.md']);
    expect(result.storedObjects).toBeGreaterThanOrEqual(1); // the original (a Markdown file is its own Markdown)
    expect(result.bytesWritten).toBeGreaterThan(0);
    expect(() => rmSync(join(dataDir, 'blobs'), { recursive: false })).toThrow();
  });

  it('keeps Idempotency-Keys in its own store, the rest of the metadata in SQLite, and replays a retried request from it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-seam-'));
    dirs.push(dataDir);
    const result = await run(dataDir);
    expect(result.retried).toEqual({ kind: 'replay', status: 201, body: expect.stringContaining('"id"') });
    expect(result.idempotencyKeys).toBe(1);
    expect(result.hits).toEqual(['note.md']); // collections and documents stayed in the embedded store
  });
});
