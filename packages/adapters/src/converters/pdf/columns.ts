import type { Cell, Figure, Line, PageItem } from './types.ts';

/** A segment is "prose" when it is at least this share of the text width and this many characters long. */
const PROSE_WIDTH_SHARE = 0.25;
const PROSE_MIN_CHARS = 15;
/** Each side of a gutter needs this many prose segments before the page is read as two columns. */
const MIN_PROSE_PER_SIDE = 4;
/** Share of lines allowed to cross the gutter (titles, full-width figures, tables). */
const MAX_CROSSING_SHARE = 0.2;

interface Segment {
  x0: number;
  x1: number;
  prose: boolean;
}

function segmentsOf(lines: Line[]): { segs: Segment[]; left: number; right: number } {
  const left = Math.min(...lines.map((l) => l.x0));
  const right = Math.max(...lines.map((l) => l.x1));
  const minWidth = (right - left) * PROSE_WIDTH_SHARE;
  const segs = lines.flatMap((l) => l.cells.map((c) => ({ x0: c.x0, x1: c.x1, prose: c.x1 - c.x0 >= minWidth && c.text.length >= PROSE_MIN_CHARS })));
  return { segs, left, right };
}

/**
 * The x of a column gutter: a vertical band in the middle 60% of the text that almost no segment crosses,
 * with enough prose on both sides. Tables and label/value forms have narrow cells, so they never qualify.
 */
export function findGutter(lines: Line[]): number | undefined {
  if (lines.length === 0) return undefined;
  const { segs, left, right } = segmentsOf(lines);
  const width = right - left;
  const prose = segs.filter((s) => s.prose);
  let best: { x: number; score: number; run: number } | undefined;
  let run = 0;
  for (let x = left + 0.2 * width; x <= left + 0.8 * width; x += 1) {
    const crossing = segs.filter((s) => s.x0 < x - 0.5 && s.x1 > x + 0.5).length;
    if (crossing > MAX_CROSSING_SHARE * lines.length) {
      run = 0;
      continue;
    }
    run += 1;
    const score = Math.min(prose.filter((s) => s.x1 <= x).length, prose.filter((s) => s.x0 >= x).length);
    if (score >= MIN_PROSE_PER_SIDE && (!best || score > best.score || (score === best.score && run > best.run))) {
      best = { x, score, run };
    }
  }
  // Centre of the clear band that produced the best score.
  return best ? best.x - (best.run - 1) / 2 : undefined;
}

function subLine(line: Line, cells: Cell[]): Line {
  const first = cells[0] as Cell;
  const last = cells[cells.length - 1] as Cell;
  return { ...line, cells, x0: first.x0, x1: last.x1 };
}

/** One side's parts of a band look like a text column: some prose and more than one line. */
function isColumn(parts: PageItem[]): boolean {
  const lines = parts.filter((p): p is Line => p.kind === 'line');
  return lines.length >= 2 && lines.some((l) => l.cells.some((c) => c.text.length >= PROSE_MIN_CHARS));
}

/** A band's items read left column then right, unless the band is not really two columns. */
function flushBand(band: PageItem[], gutter: number, out: PageItem[]): void {
  const left: PageItem[] = [];
  const right: PageItem[] = [];
  for (const item of band) {
    if (item.kind === 'figure') {
      (item.x1 <= gutter ? left : right).push(item);
      continue;
    }
    const l = item.cells.filter((c) => c.x1 <= gutter);
    const r = item.cells.filter((c) => c.x0 >= gutter);
    if (l.length) left.push(subLine(item, l));
    if (r.length) right.push(subLine(item, r));
  }
  if (isColumn(left) && isColumn(right)) out.push(...left, ...right);
  else out.push(...band);
  band.length = 0;
}

const crosses = (item: PageItem, gutter: number): boolean =>
  item.kind === 'figure' ? item.x0 < gutter && item.x1 > gutter : item.cells.some((c) => c.x0 < gutter && c.x1 > gutter);

/**
 * Page items in reading order. Single-column pages read top to bottom. When a gutter is found, items that
 * cross it (titles, wide tables and figures) cut the page into bands, and each band reads left column then right.
 */
export function readingOrder(lines: Line[], figures: Figure[]): PageItem[] {
  const items: PageItem[] = [...lines, ...figures].sort((a, b) => a.top - b.top || a.x0 - b.x0);
  const gutter = findGutter(lines);
  if (gutter === undefined) return items;
  const out: PageItem[] = [];
  const band: PageItem[] = [];
  for (const item of items) {
    if (crosses(item, gutter)) {
      flushBand(band, gutter, out);
      out.push(item);
    } else {
      band.push(item);
    }
  }
  flushBand(band, gutter, out);
  return out;
}
