import { cellsKey } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { isDossierError } from '../domain/errors.ts';
import type { CellRange, Collection } from '../domain/types.ts';
import type { CellRegion } from '../ingest/converters/types.ts';

/**
 * A spreadsheet's cell map as stored (`cells.json`): its sheets once each with their column span, then one
 * `[start, end, sheet index, row]` per Markdown table line, about 25 bytes a row.
 */
interface StoredCells {
  sheets: { name: string; firstColumn: number; lastColumn: number }[];
  rows: number[][];
}

/** Cell regions as stored. */
export function encodeCells(cells: CellRegion[]): Uint8Array {
  const sheets: StoredCells['sheets'] = [];
  const index = new Map<string, number>();
  const rows = cells.map((c) => {
    const key = `${c.sheet}\u0000${c.firstColumn}\u0000${c.lastColumn}`;
    if (!index.has(key)) index.set(key, sheets.push({ name: c.sheet, firstColumn: c.firstColumn, lastColumn: c.lastColumn }) - 1);
    return [c.start, c.end, index.get(key) as number, c.row];
  });
  return new TextEncoder().encode(JSON.stringify({ sheets, rows } satisfies StoredCells));
}

/** Stored cell regions read back, ordered by start; malformed entries are skipped. */
export function decodeCells(bytes: Uint8Array): CellRegion[] {
  const raw = JSON.parse(new TextDecoder().decode(bytes)) as Partial<StoredCells> | null;
  const sheets = Array.isArray(raw?.sheets) ? raw.sheets : [];
  const out: CellRegion[] = [];
  for (const r of Array.isArray(raw?.rows) ? raw.rows : []) {
    const sheet = Array.isArray(r) && r.length === 4 && r.every((v) => Number.isInteger(v)) ? sheets[r[2] as number] : undefined;
    if (sheet)
      out.push({
        start: r[0] as number,
        end: r[1] as number,
        sheet: sheet.name,
        row: r[3] as number,
        firstColumn: sheet.firstColumn,
        lastColumn: sheet.lastColumn,
      });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** A document's stored cell map, or null when it has none (not a spreadsheet, or converted before cells were kept). */
export async function cellsOf(ctx: ContextPart<'blobs'>, c: Collection, documentId: string): Promise<CellRegion[] | null> {
  try {
    return decodeCells(await ctx.blobs.get(cellsKey(c, documentId)));
  } catch (err) {
    if (isDossierError(err, 'not_found')) return null;
    throw err;
  }
}

/** A column's letters from its 1-based number: 1 → A, 27 → AA. */
export function columnName(column: number): string {
  let name = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name || 'A';
}

/** Index of the first line ending after `offset` (lines ordered by start and not overlapping, so by end too). */
function firstEndingAfter(cells: CellRegion[], offset: number): number {
  let lo = 0;
  let hi = cells.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cells[mid] as CellRegion).end <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The cell ranges the characters [start, end) of a spreadsheet's Markdown come from: per sheet, its first to last
 * row the passage touches across the sheet's columns (`A2:D40`). Null when no table row is touched.
 */
export function passageCells(cells: CellRegion[], start: number, end: number): CellRange[] | null {
  const bySheet = new Map<string, { first: number; last: number; firstColumn: number; lastColumn: number }>();
  for (let i = firstEndingAfter(cells, start); i < cells.length && (cells[i] as CellRegion).start < end; i++) {
    const c = cells[i] as CellRegion;
    const seen = bySheet.get(c.sheet);
    if (seen) Object.assign(seen, { first: Math.min(seen.first, c.row), last: Math.max(seen.last, c.row) });
    else bySheet.set(c.sheet, { first: c.row, last: c.row, firstColumn: c.firstColumn, lastColumn: c.lastColumn });
  }
  if (bySheet.size === 0) return null;
  return [...bySheet].map(([sheet, r]) => ({ sheet, range: `${columnName(r.firstColumn)}${r.first}:${columnName(r.lastColumn)}${r.last}` }));
}
