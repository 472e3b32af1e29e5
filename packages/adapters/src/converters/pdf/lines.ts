import type { Cell, Line, Run } from './types.ts';

/**
 * Gap (in ems of the line's font size) that separates two cells of a line. Word spaces are 0.25–0.35 em and
 * stretch to about 0.45 em in justified text; the tightest table gap in the eval set (layout-parser's
 * "Base Model¹ | Large Model" header) is 0.63 em.
 */
const CELL_GAP_EM = 0.5;
/** OCR word boxes are looser and a dropped low-confidence word leaves a hole: cells need a wider gap. */
const OCR_CELL_GAP_EM = 1.0;
/** Gap above which two runs of one cell get a space between them (pdf.js leaves some word gaps as jumps). */
const SPACE_GAP_EM = 0.12;
/** How much of the smaller vertical extent two runs must share to sit on one line; lets superscripts join. */
const SAME_LINE_OVERLAP = 0.5;

/** A line list marker on its own: bullet glyphs, `1.`, `a)`, `(iv)`, `2.3`, `IV.` */
export const MARKER_ONLY = /^(?:[•◦▪▫■□●○‣⁃∙·∗*–—-]|\(?\d{1,3}[.)]?|\(?[a-zA-Z][.)]|\(?[ivxIVX]{1,5}[.)]|\d{1,3}(?:\.\d{1,3})+\.?)$/;

interface OpenLine {
  runs: Run[];
  /** Vertical extent of the line's largest run, the reference for joining. */
  top: number;
  bottom: number;
  size: number;
}

const extent = (r: Run): [number, number] => [r.y - 0.75 * r.size, r.y + 0.25 * r.size];

function overlapRatio(r: Run, line: OpenLine): number {
  const [top, bottom] = extent(r);
  const shared = Math.min(bottom, line.bottom) - Math.max(top, line.top);
  return shared / Math.min(bottom - top, line.bottom - line.top);
}

/** Group runs into lines by shared vertical extent; a run joins the best-overlapping recent line. */
function groupRuns(runs: Run[]): OpenLine[] {
  const sorted = [...runs].sort((a, b) => a.y - b.y || a.x - b.x);
  const lines: OpenLine[] = [];
  for (const run of sorted) {
    let best: OpenLine | undefined;
    let bestRatio = SAME_LINE_OVERLAP;
    for (let i = lines.length - 1; i >= Math.max(0, lines.length - 4); i--) {
      const ratio = overlapRatio(run, lines[i] as OpenLine);
      if (ratio >= bestRatio) [best, bestRatio] = [lines[i], ratio];
    }
    if (!best) {
      const [top, bottom] = extent(run);
      lines.push({ runs: [run], top, bottom, size: run.size });
      continue;
    }
    best.runs.push(run);
    if (run.size > best.size) [best.top, best.bottom, best.size] = [...extent(run), run.size];
  }
  return lines;
}

/** True when `b` repeats `a` at (almost) the same place: simulated bold draws text twice. */
const isOverprint = (a: Run, b: Run): boolean => a.text === b.text && Math.abs(a.x - b.x) < a.size * 0.2 && Math.abs(a.y - b.y) < a.size * 0.2;

/** `a` is a superscript next to `b`: smaller and raised (a footnote mark opening a footnote line). */
const isRaised = (a: Run, b: Run): boolean => a.size < 0.8 * b.size && a.y < b.y - 0.15 * b.size;

/** Split a line's runs (sorted by x) into cells at wide gaps, inserting spaces at word gaps. */
function toCells(runs: Run[], size: number, gapEm: number): Cell[] {
  const cells: Cell[] = [];
  let cur: Cell | undefined;
  let prev: Run | undefined;
  for (const run of runs) {
    if (prev && isOverprint(prev, run)) continue;
    const gap = cur ? run.x - cur.x1 : 0;
    if (!cur || gap > gapEm * size || run.cellStart) {
      cur = { text: run.text, x0: run.x, x1: run.x + run.width };
      cells.push(cur);
    } else {
      const leadingMark = prev !== undefined && prev === runs[0] && isRaised(prev, run);
      const needsSpace = (gap > SPACE_GAP_EM * size || leadingMark) && !/\s$/.test(cur.text) && !/^\s/.test(run.text);
      cur.text += (needsSpace ? ' ' : '') + run.text;
      cur.x1 = Math.max(cur.x1, run.x + run.width);
    }
    prev = run;
  }
  for (const c of cells) c.text = c.text.replace(/\s+/g, ' ').trim();
  return cells.filter((c) => c.text.length > 0);
}

/** The value with the most characters behind it. */
function weightedMode(runs: Run[], key: (r: Run) => number): number {
  const weights = new Map<number, number>();
  for (const r of runs) weights.set(key(r), (weights.get(key(r)) ?? 0) + r.text.length);
  let best = 0;
  let bestWeight = -1;
  for (const [value, w] of weights) if (w > bestWeight) [best, bestWeight] = [value, w];
  return best;
}

const share = (runs: Run[], pred: (r: Run) => boolean): number => {
  const total = runs.reduce((n, r) => n + r.text.trim().length, 0);
  return total === 0 ? 0 : runs.reduce((n, r) => n + (pred(r) ? r.text.trim().length : 0), 0) / total;
};

/**
 * A list marker or section number standing apart from its text (hanging indents put it a cell away):
 * joined back when the line has only those two cells, or when it is a bullet glyph, and the text starts
 * like words ("180 | -24" in a table row stays two cells).
 */
function joinMarker(cells: Cell[], size: number): Cell[] {
  const [first, second, ...rest] = cells;
  if (!first || !second || !MARKER_ONLY.test(first.text)) return cells;
  if (!/^[\p{L}("“'‘]/u.test(second.text) || second.x0 - first.x1 > 4 * size) return cells;
  if (rest.length > 0 && !/^[•◦▪▫■□●○‣⁃∙·∗]$/.test(first.text)) return cells;
  return [{ text: `${first.text} ${second.text}`, x0: first.x0, x1: second.x1 }, ...rest];
}

function toLine(open: OpenLine, gapEm: number): Line | undefined {
  const runs = [...open.runs].sort((a, b) => a.x - b.x);
  const size = weightedMode(runs, (r) => Math.round(r.size * 2) / 2);
  const cells = joinMarker(toCells(runs, size, gapEm), size);
  const first = cells[0];
  const last = cells[cells.length - 1];
  if (!first || !last) return undefined;
  const main = runs.filter((r) => Math.abs(r.size - size) < 0.75);
  const y = weightedMode(main.length ? main : runs, (r) => Math.round(r.y * 10) / 10);
  return {
    kind: 'line',
    cells,
    x0: first.x0,
    x1: last.x1,
    y,
    top: y - 0.75 * size,
    bottom: y + 0.25 * size,
    size,
    bold: share(runs, (r) => r.bold) >= 0.6,
    mono: share(runs, (r) => r.mono) >= 0.9,
  };
}

/** Runs of one page to lines, top to bottom; each line's cells left to right. */
export function buildLines(runs: Run[], ocr = false): Line[] {
  const visible = runs.filter((r) => r.text.trim().length > 0 && r.size > 0);
  const lines: Line[] = [];
  for (const open of groupRuns(visible)) {
    const line = toLine(open, ocr ? OCR_CELL_GAP_EM : CELL_GAP_EM);
    if (line) lines.push(line);
  }
  return lines.sort((a, b) => a.top - b.top || a.x0 - b.x0);
}
