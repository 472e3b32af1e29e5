import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChunkIndex } from '@dossier/core';
import { dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDossier, type Dossier } from '../src/create-dossier.ts';
import { createLanceChunkIndex } from '../src/lancedb/chunk-index.ts';

const REPORT = '# Annual report\n\nIntro words.\n\n## Revenue\n\nRevenue grew by a quarter on strong walrus sales.\n';

describe('query provenance carried in the chunk rows (real SQLite and LanceDB)', () => {
  let dataDir: string;
  let collectionId: string;
  const dossiers: Dossier[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-provenance-'));
    const writer = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 1, pollMs: 20 } });
    const d = await writer.local();
    collectionId = (await d.collections.create({ name: 'provenance' })).id;
    await d.documents.add(collectionId, { filename: 'report.md', bytes: new TextEncoder().encode(REPORT) });
    await writer.idle();
    await writer.close();
  }, 60_000);

  afterAll(async () => {
    for (const d of dossiers) await d.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const open = async (index?: ChunkIndex) => {
    const dossier = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 0 }, ...(index ? { index } : {}) });
    dossiers.push(dossier);
    return dossier;
  };

  it('answers with the section title and level from the rows, reading only the documents from the metadata store', async () => {
    const dossier = await open();
    const getSections = vi.spyOn(dossierContext(dossier).store, 'getSections');
    const getDocuments = vi.spyOn(dossierContext(dossier).store, 'getDocuments');
    const { results } = await (await dossier.local()).search.query(collectionId, { q: 'walrus revenue' });
    expect(results[0]).toMatchObject({ section: { title: 'Revenue', level: 2 }, document: { filename: 'report.md' } });
    expect(getSections).not.toHaveBeenCalled();
    expect(getDocuments).toHaveBeenCalledTimes(1);
  });

  it('looks the section up for rows of an index written before rows carried the level', async () => {
    const lance = createLanceChunkIndex({ dir: join(dataDir, 'lancedb') });
    // An index of the older layout: the same rows, without the level.
    const older: ChunkIndex = {
      ...lance,
      searchText: async (...args) => (await lance.searchText(...args)).map((h) => ({ ...h, row: { ...h.row, sectionLevel: null } })),
    };
    const dossier = await open(older);
    const getSections = vi.spyOn(dossierContext(dossier).store, 'getSections');
    const { results } = await (await dossier.local()).search.query(collectionId, { q: 'walrus revenue' });
    expect(results[0]).toMatchObject({ section: { title: 'Revenue', level: 2 }, document: { filename: 'report.md' } });
    expect(getSections).toHaveBeenCalledTimes(1);
  });
});
