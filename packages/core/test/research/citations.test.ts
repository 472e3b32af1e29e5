import { describe, expect, it } from 'vitest';
import { checkCitations, citedNumbers } from '../../src/research/citations.ts';
import { SourceRegistry } from '../../src/research/sources.ts';

const source = (n: number) => ({
  chunkId: `chunk-${n}`,
  content: `text ${n}`,
  documentId: 'doc',
  filename: 'a.md',
  sectionId: 'sec',
  sectionTitle: 'Intro',
  sectionLevel: 1,
});

describe('citations', () => {
  it('reads [S1], [1], grouped and repeated markers, in ascending order without duplicates', () => {
    expect(citedNumbers('A [S3]. B [1]. C [s2, S4; 5]. D [S3][S3].')).toEqual([1, 2, 3, 4, 5]);
    expect(citedNumbers('No markers, [a link](x) and [^1] footnotes.')).toEqual([]);
  });

  it('numbers each chunk once, so a chunk returned again keeps its marker', () => {
    const r = new SourceRegistry();
    expect(r.add(source(1)).marker).toBe('S1');
    expect(r.add(source(2)).marker).toBe('S2');
    expect(r.add(source(1)).marker).toBe('S1');
    expect(r.all().map((e) => e.marker)).toEqual(['S1', 'S2']);
  });

  it('keeps exactly the cited sources that a tool returned, in marker order, and none when none is cited', () => {
    const r = new SourceRegistry();
    for (const n of [1, 2, 3]) r.add(source(n));
    expect(checkCitations('X [S3] and [S1].', r).sources.map((s) => [s.marker, s.chunkId])).toEqual([
      ['S1', 'chunk-1'],
      ['S3', 'chunk-3'],
    ]);
    expect(checkCitations('Nothing cited.', r)).toEqual({ answer: 'Nothing cited.', sources: [], unresolved: [] });
  });

  it('removes markers that resolve to no source and reports them, keeping the valid ones of a bracket (issue 12)', () => {
    const r = new SourceRegistry();
    for (const n of [1, 2]) r.add(source(n));
    const checked = checkCitations('A [S1][S99]. B [S2, S42; 1]. C [7].', r);
    expect(checked.answer).toBe('A [S1]. B [S2, 1]. C.');
    expect(checked.unresolved).toEqual(['S7', 'S42', 'S99']);
    expect(checked.sources.map((s) => s.marker)).toEqual(['S1', 'S2']);
    expect(checkCitations('Only an unknown marker [S9].', r)).toEqual({ answer: 'Only an unknown marker.', sources: [], unresolved: ['S9'] });
  });
});
