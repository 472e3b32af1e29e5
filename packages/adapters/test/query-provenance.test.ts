import { join } from 'node:path';
import type { ChunkIndex } from '@dossier/core';
import { dossierContext } from '@dossier/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { createLanceChunkIndex } from '../src/lancedb/chunk-index.ts';
import { useIngestedCollection } from './ingested-fixture.ts';

const REPORT = '# Annual report\n\nIntro words.\n\n## Revenue\n\nRevenue grew by a quarter on strong walrus sales.\n';

describe('query provenance carried in the chunk rows (real SQLite and LanceDB)', () => {
  const fixture = useIngestedCollection('provenance', { 'report.md': REPORT });
  const open = (index?: ChunkIndex) => fixture.open(index ? { index } : {});

  it('answers with the section title and level from the rows, reading only the documents from the metadata store', async () => {
    const dossier = await open();
    const getSections = vi.spyOn(dossierContext(dossier).store, 'getSections');
    const getDocuments = vi.spyOn(dossierContext(dossier).store, 'getDocuments');
    const { results } = await (await dossier.local()).search.query(fixture.collectionId, { q: 'walrus revenue' });
    expect(results[0]).toMatchObject({ section: { title: 'Revenue', level: 2 }, document: { filename: 'report.md' } });
    expect(getSections).not.toHaveBeenCalled();
    expect(getDocuments).toHaveBeenCalledTimes(1);
  });

  it('looks the section up for rows of an index written before rows carried the level', async () => {
    const lance = createLanceChunkIndex({ dir: join(fixture.dataDir, 'lancedb') });
    // An index of the older layout: the same rows, without the level.
    const older: ChunkIndex = {
      ...lance,
      searchText: async (...args) => (await lance.searchText(...args)).map((h) => ({ ...h, row: { ...h.row, sectionLevel: null } })),
    };
    const dossier = await open(older);
    const getSections = vi.spyOn(dossierContext(dossier).store, 'getSections');
    const { results } = await (await dossier.local()).search.query(fixture.collectionId, { q: 'walrus revenue' });
    expect(results[0]).toMatchObject({ section: { title: 'Revenue', level: 2 }, document: { filename: 'report.md' } });
    expect(getSections).toHaveBeenCalledTimes(1);
  });

  it('says which list found each hit and at what rank, kept through reranking (issue 34)', async () => {
    const plain = await (await (await open()).local()).search.query(fixture.collectionId, { q: 'walrus revenue annual' });
    expect(plain.results.length).toBeGreaterThan(1);
    expect(plain.results.map((h) => h.foundBy)).toEqual(plain.results.map((_, i) => ({ lexical: i + 1 }))); // no embeddings: lexical only
    // A reranker that puts the last candidate first: the hits keep the ranks their lists gave them.
    const reversing = { name: 'reversing', rerank: async (_q: string, candidates: unknown[]) => candidates.map((_, i) => i) };
    const local = await (await fixture.open({ reranker: reversing })).local();
    await local.collections.update(fixture.collectionId, { enableReranking: true });
    const reranked = await local.search.query(fixture.collectionId, { q: 'walrus revenue annual' });
    expect(reranked.reranker).toBe('reversing');
    const ranks = reranked.results.map((h) => h.foundBy?.lexical);
    expect(ranks).toEqual([...ranks].sort((a, b) => (b ?? 0) - (a ?? 0)));
    expect(ranks[0]).toBeGreaterThan(1);
    await local.collections.update(fixture.collectionId, { enableReranking: false });
  });
});
