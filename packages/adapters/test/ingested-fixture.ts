import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createDossier, type DossierOptions, type EmbeddedDossier } from '../src/create-dossier.ts';

/** A data directory holding one collection whose documents are ingested (real SQLite and LanceDB), for read-side tests. */
export interface IngestedFixture {
  /** The data directory (valid once beforeAll ran). */
  readonly dataDir: string;
  readonly collectionId: string;
  /** A Dossier over the data directory that runs no pipeline workers; closed after the file's tests. */
  open(options?: Partial<DossierOptions>): Promise<EmbeddedDossier>;
}

/** Ingest `docs` (filename → Markdown) into a new collection before this file's tests; remove everything after. */
export function useIngestedCollection(name: string, docs: Record<string, string>): IngestedFixture {
  let dataDir = '';
  let collectionId = '';
  const opened: EmbeddedDossier[] = [];
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `dossier-${name}-`));
    const writer = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 1, pollMs: 20 } });
    const local = await writer.local();
    collectionId = (await local.collections.create({ name })).id;
    const encoder = new TextEncoder();
    for (const [filename, text] of Object.entries(docs)) await local.documents.add(collectionId, { filename, bytes: encoder.encode(text) });
    await writer.idle();
    await writer.close();
  }, 60_000);
  afterAll(async () => {
    for (const dossier of opened) await dossier.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    get dataDir() {
      return dataDir;
    },
    get collectionId() {
      return collectionId;
    },
    async open(options = {}) {
      const dossier = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 0 }, ...options });
      opened.push(dossier);
      return dossier;
    },
  };
}
