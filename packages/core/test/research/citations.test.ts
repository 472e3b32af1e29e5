import { describe, expect, it } from 'vitest';
import { citedNumbers, sessionSources } from '../../src/research/citations.ts';
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

  it('keeps only cited sources that a tool returned, in marker order; all retrieved when none is cited', () => {
    const r = new SourceRegistry();
    for (const n of [1, 2, 3]) r.add(source(n));
    expect(sessionSources('X [S3] and [S1] and [S9].', r).map((s) => s.chunkId)).toEqual(['chunk-1', 'chunk-3']);
    expect(sessionSources('Nothing cited.', r).map((s) => s.chunkId)).toEqual(['chunk-1', 'chunk-2', 'chunk-3']);
    expect(sessionSources('Only an unknown marker [S9].', r)).toHaveLength(3);
  });
});
