import { describe, expect, it } from 'vitest';
import { columnName, decodeCells, encodeCells, passageCells } from '../src/documents/cells.ts';
import {
  chunkLocation,
  decodePositions,
  decodeRegions,
  encodePositions,
  encodeRegions,
  locatePassage,
  MAX_PASSAGE_BOXES,
  passagePages,
  passagePositions,
} from '../src/documents/regions.ts';
import type { CellRegion, TextRegion } from '../src/ingest/converters/types.ts';

/** Lines of 20 characters (plus a newline) stacked down a column of page `page`, 0.02 of the page high each. */
const lines = (page: number, count: number, from = 0, x0 = 0.1, top = 0.1): TextRegion[] =>
  Array.from({ length: count }, (_, i) => ({
    start: from + i * 21,
    end: from + i * 21 + 20,
    page,
    box: [x0, top + i * 0.02, x0 + 0.35, top + i * 0.02 + 0.015],
  }));

describe('passage positions', () => {
  it('merges the consecutive lines of a column into one box, and starts another on the next page', () => {
    const regions = [...lines(1, 5), ...lines(2, 3, 105)];
    const p = passagePositions(regions, 30, 140);
    expect(p?.pages).toEqual([1, 2]);
    const rounded = p?.regions.map((r) => ({ page: r.page, box: r.box.map((v) => Math.round(v * 1000) / 1000) }));
    expect(rounded).toEqual([
      { page: 1, box: [0.1, 0.12, 0.45, 0.195] },
      { page: 2, box: [0.1, 0.1, 0.45, 0.135] },
    ]);
  });

  it('keeps separate boxes for two columns and for lines far apart', () => {
    const left = lines(1, 2, 0, 0.1, 0.1);
    const right = lines(1, 2, 42, 0.55, 0.1);
    const low = lines(1, 1, 84, 0.1, 0.8);
    expect(passagePositions([...left, ...right, ...low], 0, 200)?.regions).toHaveLength(3);
  });

  it('bounds the number of boxes by merging them page by page, and answers null where no region is', () => {
    const scattered: TextRegion[] = Array.from({ length: 30 }, (_, i) => ({
      start: i * 10,
      end: i * 10 + 9,
      page: 1 + (i % 2),
      box: [i % 3 === 0 ? 0.1 : 0.6, (i * 0.03) % 0.9, i % 3 === 0 ? 0.4 : 0.9, ((i * 0.03) % 0.9) + 0.01],
    }));
    const p = passagePositions(scattered, 0, 300);
    expect(p?.regions.length).toBeLessThanOrEqual(MAX_PASSAGE_BOXES);
    expect(p?.regions.map((r) => r.page)).toEqual([1, 2]);
    expect(passagePositions(scattered, 5000, 6000)).toBeNull();
  });

  it('gives a passage of a format without geometry its pages alone (slides), stored as page-only entries', () => {
    const p = passagePages([0, 100, 250], 120, 260);
    expect(p).toEqual({ pages: [2, 3], regions: [] });
    expect(p && encodePositions(p)).toBe('[[2],[3]]');
    expect(decodePositions('[[2],[3]]')).toEqual({ pages: [2, 3], regions: [] });
    expect(decodePositions('[[1,0.1,0.2,0.3,0.4],[2]]')).toEqual({ pages: [1, 2], regions: [{ page: 1, box: [0.1, 0.2, 0.3, 0.4] }] });
  });

  it('round-trips through the stored forms', () => {
    const regions = lines(3, 4);
    expect(decodeRegions(encodeRegions(regions))).toEqual(regions);
    const p = passagePositions(regions, 0, 80);
    expect(p && decodePositions(encodePositions(p))).toEqual(p);
    expect(decodePositions('not json')).toBeNull();
    expect(decodePositions('[["x"]]')).toBeNull();
  });
});

describe('spreadsheet cells (issue 39)', () => {
  /** Rows 1, 2, 3, 5 of sheet Data (columns B to D) as Markdown lines of 10 characters, then row 1 of sheet Notes. */
  const cells: CellRegion[] = [
    ...[1, 2, 3, 5].map((row, i) => ({ start: i * 11, end: i * 11 + 10, sheet: 'Data', row, firstColumn: 2, lastColumn: 4 })),
    { start: 60, end: 70, sheet: 'Notes', row: 1, firstColumn: 1, lastColumn: 28 },
  ];

  it('names columns as a spreadsheet does', () => {
    expect([1, 2, 26, 27, 28, 52, 53, 702, 703, 16384].map(columnName)).toEqual(['A', 'B', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA', 'XFD']);
  });

  it('gives a passage the first to last row it touches across its sheet’s columns, per sheet', () => {
    expect(passageCells(cells, 12, 40)).toEqual([{ sheet: 'Data', range: 'B2:D5' }]);
    expect(passageCells(cells, 35, 65)).toEqual([
      { sheet: 'Data', range: 'B5:D5' },
      { sheet: 'Notes', range: 'A1:AB1' },
    ]);
    expect(passageCells(cells, 44, 60)).toBeNull();
  });

  it('round-trips the cell map and a chunk’s cells through their stored forms; older readers skip cell entries', () => {
    expect(decodeCells(encodeCells(cells))).toEqual(cells);
    const located = locatePassage({ regions: null, pageOffsets: null, cells }, 0, 30);
    expect(located).toEqual({ pages: [], regions: [], cells: [{ sheet: 'Data', range: 'B1:D3' }] });
    const stored = encodePositions(located as NonNullable<typeof located>);
    expect(decodePositions(stored)).toEqual(located);
    expect(chunkLocation({ charStart: 0, charEnd: 30, positions: stored })).toEqual({
      span: { start: 0, end: 30 },
      cells: [{ sheet: 'Data', range: 'B1:D3' }],
    });
    // What a reader of page entries alone sees: nothing it misreads as a page.
    const pageEntries = (JSON.parse(stored) as unknown[]).filter((e) => Array.isArray(e) && e.every((v) => typeof v === 'number'));
    expect(pageEntries).toEqual([]);
    expect(locatePassage({ regions: null, pageOffsets: null, cells }, 44, 60)).toBeNull();
  });
});
