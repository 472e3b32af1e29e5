import type { Cell, Line, PageItem } from './types.ts';

/** A table found in a page's item list: items [start, end) become `rows` (the first row is the header). */
export interface FoundTable {
  start: number;
  end: number;
  rows: string[][];
}

/** Rows further apart than this many ems (baseline to baseline) end a table; sparse invoices use ~2.6. */
const MAX_ROW_PITCH_EM = 3.4;
/** A row whose font size differs from the previous one by more than this share ends the table (OCR sizes are rougher). */
const MAX_SIZE_CHANGE = 0.3;
const MAX_OCR_SIZE_CHANGE = 0.5;
/** Average characters per filled cell above which the "table" is really prose. */
const MAX_MEAN_CELL_CHARS = 45;
/** One-cell rows (a row label such as "Supplies") may sit inside a table when this short. */
const MAX_LONE_CELL_CHARS = 40;
/** …and when no further below the row above than this many ems (baseline to baseline). */
const LONE_CELL_PITCH_EM = 1.6;

const asLine = (item: PageItem | undefined): Line | undefined => (item?.kind === 'line' ? item : undefined);

/** The next line may continue a table whose last row is `prev`. */
function continues(prev: Line, next: Line, ocr: boolean): boolean {
  const size = Math.max(prev.size, next.size);
  if (next.top < prev.top) return false; // moved up: another column
  if (next.y - prev.y > MAX_ROW_PITCH_EM * size) return false;
  return Math.abs(next.size - prev.size) <= (ocr ? MAX_OCR_SIZE_CHANGE : MAX_SIZE_CHANGE) * size;
}

/** A one-cell line that starts or ends where a cell of the rows above does: a row label, not a caption. */
function isAlignedLoneCell(line: Line, rows: Line[]): boolean {
  const cell = line.cells[0] as Cell;
  const prev = rows[rows.length - 1] as Line;
  if (line.cells.length !== 1 || cell.text.length > MAX_LONE_CELL_CHARS) return false;
  if (line.y - prev.y > LONE_CELL_PITCH_EM * line.size) return false; // set apart: a caption or title
  const tol = line.size * 0.5;
  return rows.some((r) => r.cells.some((c) => Math.abs(c.x0 - cell.x0) < tol || Math.abs(c.x1 - cell.x1) < tol));
}

/** Consecutive lines from `start` that could form one table (validated separately). */
function candidateRows(items: PageItem[], start: number, ocr: boolean): Line[] {
  const first = asLine(items[start]);
  // Monospaced lines with gaps are code or preformatted text, kept as such.
  if (!first || first.cells.length < 2 || first.mono) return [];
  const rows = [first];
  for (let j = start + 1; j < items.length; j++) {
    const next = asLine(items[j]);
    const prev = rows[rows.length - 1] as Line;
    if (!next || next.mono || !continues(prev, next, ocr)) break;
    if (next.cells.length >= 2) {
      rows.push(next);
      continue;
    }
    const after = asLine(items[j + 1]);
    if (!isAlignedLoneCell(next, rows) || !after || after.cells.length < 2 || !continues(next, after, ocr)) break;
    rows.push(next);
  }
  return rows;
}

type Interval = [number, number];

/** How many cells cover each integer x from `left` to `right`. */
function coverage(cells: Cell[], left: number, right: number): Uint16Array {
  const count = new Uint16Array(right - left + 2);
  for (const c of cells) {
    for (let x = Math.floor(c.x0) - left; x <= Math.ceil(c.x1) - left; x++) count[x] = (count[x] ?? 0) + 1;
  }
  return count;
}

/** Maximal x-intervals where `on(i)` holds, in page x. */
function runsWhere(length: number, left: number, on: (i: number) => boolean): Interval[] {
  const out: Interval[] = [];
  let start: number | undefined;
  for (let i = 0; i <= length; i++) {
    const yes = i < length && on(i);
    if (yes && start === undefined) start = i;
    if (!yes && start !== undefined) {
      out.push([start + left, i - 1 + left]);
      start = undefined;
    }
  }
  return out;
}

/**
 * A cell reaching across a column gap: within its extent the other cells leave a blank stretch, with
 * well-filled columns (at least `min` other cells) on both sides. A group title or a long note, not a column.
 */
function isSpanning(c: Cell, count: Uint16Array, left: number, min: number): boolean {
  const from = Math.max(0, Math.floor(c.x0) - left);
  const to = Math.min(count.length - 1, Math.ceil(c.x1) - left);
  const others = (i: number): number => (count[from + i] ?? 0) - 1;
  const filled = runsWhere(to - from + 1, 0, (i) => others(i) > 0);
  return filled.filter(([a, b]) => Array.from({ length: b - a + 1 }, (_, k) => others(a + k)).some((n) => n >= min)).length >= 2;
}

/**
 * Column extents of a table: the x-intervals covered by cells, once cells that span several well-filled
 * columns (in at most a quarter of the rows) are set aside. Gaps between the intervals are the separators.
 */
export function columnBounds(rows: Line[]): Interval[] {
  const left = Math.floor(Math.min(...rows.map((r) => r.x0)));
  const right = Math.ceil(Math.max(...rows.map((r) => r.x1)));
  const cells = rows.flatMap((r) => r.cells);
  const min = rows.length >= 4 ? Math.max(2, Math.floor(rows.length * 0.15) + 1) : 1;
  const count = coverage(cells, left, right);
  const spanning = new Set(cells.filter((c) => isSpanning(c, count, left, min)));
  const spanningRows = rows.filter((r) => r.cells.some((c) => spanning.has(c))).length;
  const kept = spanningRows > Math.max(1, rows.length / 4) ? cells : cells.filter((c) => !spanning.has(c));
  const keptCount = coverage(kept, left, right);
  return runsWhere(keptCount.length, left, (i) => (keptCount[i] ?? 0) > 0);
}

/** A row's cells placed into columns: each cell goes to the column its left edge falls in. */
function placeCells(row: Line, cols: [number, number][]): string[] {
  const out = cols.map(() => '');
  for (const c of row.cells) {
    const i = cols.findIndex(([, x1]) => c.x0 <= x1 + 0.5);
    const at = i < 0 ? cols.length - 1 : i;
    out[at] = out[at] ? `${out[at]} ${c.text}` : c.text;
  }
  return out;
}

/** The rows as a table, or undefined when they do not look like one. */
function tableOf(rows: Line[]): string[][] | undefined {
  if (rows.length < 2) return undefined;
  const cols = columnBounds(rows);
  if (cols.length < 2) return undefined;
  const grid = rows.map((r) => placeCells(r, cols));
  const multi = grid.filter((r) => r.filter(Boolean).length >= 2).length;
  if (multi < 2 || multi < rows.length / 2) return undefined;
  const filled = grid.flat().filter(Boolean);
  if (filled.reduce((n, t) => n + t.length, 0) / filled.length > MAX_MEAN_CELL_CHARS) return undefined;
  const used = cols.map((_, i) => grid.some((r) => r[i]));
  return grid.map((r) => r.filter((_, i) => used[i]));
}

/** The longest leading part of `rows` (at least two rows) that reads as a table. */
function longestTable(rows: Line[]): { rows: string[][]; count: number } | undefined {
  for (let n = rows.length; n >= 2; n--) {
    const table = tableOf(rows.slice(0, n));
    if (table) return { rows: table, count: n };
  }
  return undefined;
}

/**
 * Tables among a page's items: runs of consecutive lines with two or more cells whose cells leave common
 * vertical gaps (column separators) through every row. Borderless tables are found the same way as ruled ones;
 * the rules themselves are not read.
 */
export function findTables(items: PageItem[], ocr = false): FoundTable[] {
  const found: FoundTable[] = [];
  for (let i = 0; i < items.length; i++) {
    const table = longestTable(candidateRows(items, i, ocr));
    if (!table) continue;
    found.push({ start: i, end: i + table.count, rows: table.rows });
    i += table.count - 1;
  }
  return found;
}
