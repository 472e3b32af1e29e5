import { describe, expect, it } from 'vitest';
import { citationBlock, pagesLabel, whereLabel } from '../src/citations.ts';
import type { ResearchSource } from '../src/api-types.ts';

const plain = { bold: (t: string) => t, cyan: (t: string) => t, dim: (t: string) => t, yellow: (t: string) => t } as never;

describe('page labels of citations (issue 39)', () => {
  it('names one page, a range of pages, or nothing for a source without pages', () => {
    expect(pagesLabel([2])).toBe(' (p. 2)');
    expect(pagesLabel([3, 2, 4])).toBe(' (pp. 2–4)');
    expect(pagesLabel([])).toBe('');
    expect(pagesLabel(undefined)).toBe('');
  });

  it('names the sheet and cells of a spreadsheet source, and prefers pages when there are some', () => {
    expect(whereLabel({ cells: [{ sheet: 'Fleet', range: 'B2:D5' }] })).toBe(' (Fleet B2:D5)');
    expect(whereLabel({ pages: [2], cells: [{ sheet: 'Fleet', range: 'B2:D5' }] })).toBe(' (p. 2)');
    expect(whereLabel({})).toBe('');
  });

  it('prints the page of each cited PDF source under the answer', () => {
    const source = (marker: string, filename: string, pages?: number[]): ResearchSource => ({
      chunkId: marker,
      content: '',
      documentId: 'd',
      filename,
      sectionId: 's',
      sectionTitle: 'Deposit',
      sectionLevel: 1,
      marker,
      pages,
    });
    const lines = citationBlock('Thirty days [S1], see notes [S2].', [source('S1', 'lease.pdf', [2]), source('S2', 'notes.md')], plain);
    expect(lines).toEqual(['Sources', '[S1] lease.pdf › Deposit (p. 2)', '[S2] notes.md › Deposit']);
  });
});
