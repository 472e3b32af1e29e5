import { DEFAULT_RETRIEVAL } from '@dossier/core';
import { queryTerms } from '@dossier/core/internal';
import { dossierContext } from '@dossier/core/testing';
import { describe, expect, it } from 'vitest';
import { useIngestedCollection } from './ingested-fixture.ts';

const DOCS: Record<string, string> = {
  'insulin.md': '# Insulin\n\nInsulin lowers blood glucose in diabetes; insulin resistance drives type 2 diabetes and glucose intolerance.\n',
  'metformin.md': '# Metformin\n\nMetformin lowers blood glucose in type 2 diabetes and improves glucose intolerance.\n',
  'tomatoes.md': '# Tomatoes\n\nTomatoes grow best in warm soil with regular watering.\n',
};

describe('RM3 query expansion through search.query (real SQLite and LanceDB)', () => {
  const fixture = useIngestedCollection('rm3', DOCS);
  const open = async (queryExpansion: 'none' | 'rm3') => (await fixture.open({ retrieval: { ...DEFAULT_RETRIEVAL, queryExpansion } })).local();
  const collectionId = () => fixture.collectionId;

  it('finds a passage that shares the feedback terms but not the query term, and keeps the direct match first', async () => {
    const plain = await (await open('none')).search.query(collectionId(), { q: 'insulin' });
    expect(plain.results.map((r) => r.document.filename)).toEqual(['insulin.md']);
    const expanded = await (await open('rm3')).search.query(collectionId(), { q: 'insulin' });
    expect(expanded.results.map((r) => r.document.filename)).toEqual(['insulin.md', 'metformin.md']);
  });

  it('follows the collection queryExpansion setting over the server default, and the default again when it is cleared', async () => {
    const d = await open('none');
    await d.collections.update(collectionId(), { queryExpansion: 'rm3' });
    expect((await d.search.query(collectionId(), { q: 'insulin' })).results.map((r) => r.document.filename)).toEqual(['insulin.md', 'metformin.md']);
    await d.collections.update(collectionId(), { queryExpansion: null });
    expect((await d.search.query(collectionId(), { q: 'insulin' })).results.map((r) => r.document.filename)).toEqual(['insulin.md']);
  });

  it('reads the feedback passages as text only, then searches once with the feedback terms written in', async () => {
    const dossier = await fixture.open({ retrieval: { ...DEFAULT_RETRIEVAL, queryExpansion: 'rm3' } });
    const index = dossierContext(dossier).index;
    const calls: string[][] = [];
    const [searchText, searchPassageTexts] = [index.searchText.bind(index), index.searchPassageTexts!.bind(index)];
    index.searchText = (id, q, o) => (calls.push(['searchText', q, String(o.limit)]), searchText(id, q, o));
    index.searchPassageTexts = (id, q, o) => (calls.push(['searchPassageTexts', q, String(o.limit)]), searchPassageTexts(id, q, o));
    const { results } = await (await dossier.local()).search.query(collectionId(), { q: 'insulin', limit: 5 });
    expect(results.map((r) => r.document.filename)).toEqual(['insulin.md', 'metformin.md']);
    // Ten feedback passages (only insulin.md matches), then limit + 5 spare hits of the expanded query.
    expect(calls.map(([method, , limit]) => [method, limit])).toEqual([
      ['searchPassageTexts', '10'],
      ['searchText', '10'],
    ]);
    expect(calls[0]![1]).toBe('insulin');
    const expandedTerms = new Set(calls[1]![1]!.split(' '));
    expect(expandedTerms).toEqual(new Set(queryTerms(`Insulin\n${DOCS['insulin.md']}`)));
  });

  it('expands the same through an index without searchPassageTexts (feedback read from searchText rows)', async () => {
    const dossier = await fixture.open({ retrieval: { ...DEFAULT_RETRIEVAL, queryExpansion: 'rm3' } });
    const index = dossierContext(dossier).index;
    index.searchPassageTexts = undefined;
    const { results } = await (await dossier.local()).search.query(collectionId(), { q: 'insulin' });
    expect(results.map((r) => r.document.filename)).toEqual(['insulin.md', 'metformin.md']);
  });

  it('returns nothing for a stop-word-only query, as without expansion', async () => {
    expect((await (await open('rm3')).search.query(collectionId(), { q: 'the of and' })).results).toEqual([]);
  });
});
