import { type Line, type PageLayout, lineText } from './types.ts';

/** Share of the page height, at the top and at the bottom, where running headers and footers live. */
const MARGIN_SHARE = 0.15;
/** How many lines at each end of a page are looked at. */
const EDGE_LINES = 2;
/** A text is furniture when it recurs at a page edge on at least this share of pages (of three or more). */
const REPEAT_SHARE = 0.6;

/** Up to this many pages, running headers are matched fuzzily (the comparison is quadratic in edge lines). */
const FUZZY_MAX_PAGES = 200;

/** `12`, `- 12 -`, `Page 3`, `Page 3 of 10` (OCR: `Page 3 0f 10`, `Page 30f10`), `3/10`, `iv`. */
const PAGE_NUMBER = /^(?:page\s*)?[-–—]?\s*(?:\d{1,4}|[ivxlc]{1,6})\s*[-–—]?(?:\s*(?:[o0]f|\/)\s*\d{1,4})?$/i;

/** A title with the page number set apart as its own cell: "LayoutParser: A Unified Toolkit …      5". */
function isNumberedRunningHead(line: Line): boolean {
  const first = line.cells[0];
  const last = line.cells[line.cells.length - 1];
  if (line.cells.length < 2 || line.cells.length > 3 || !first || !last) return false;
  return /^\d{1,4}$/.test(first.text) !== /^\d{1,4}$/.test(last.text);
}

/** A line's text with digits generalised, so "Page 3" and "Page 4" compare equal. */
const keyOf = (line: Line): string => lineText(line).toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();

/** The lines at the top and bottom edges of a page, inside its margins. */
function edgeLines(page: PageLayout): Line[] {
  const lines = page.items.filter((i): i is Line => i.kind === 'line').sort((a, b) => a.top - b.top);
  const top = lines.slice(0, EDGE_LINES).filter((l) => l.bottom < page.height * MARGIN_SHARE);
  const bottom = lines.slice(-EDGE_LINES).filter((l) => l.top > page.height * (1 - MARGIN_SHARE));
  return [...new Set([...top, ...bottom])];
}

/** The first and last line of a page when they lie in its margins. */
function outermostLines(page: PageLayout): Line[] {
  const lines = page.items.filter((i): i is Line => i.kind === 'line').sort((a, b) => a.top - b.top);
  const edges = [lines[0], lines[lines.length - 1]].filter((l): l is Line => l !== undefined);
  return edges.filter((l) => l.bottom < page.height * MARGIN_SHARE || l.top > page.height * (1 - MARGIN_SHARE));
}

/** Character bigrams of a key, for fuzzy comparison. */
function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) m.set(s.slice(i, i + 2), (m.get(s.slice(i, i + 2)) ?? 0) + 1);
  return m;
}

/** Dice similarity of two keys' bigrams (1 = same). */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const [ma, mb] = [bigrams(a), bigrams(b)];
  let shared = 0;
  for (const [g, n] of ma) shared += Math.min(n, mb.get(g) ?? 0);
  return (2 * shared) / Math.max(1, a.length + b.length - 2);
}

/**
 * How many pages carry each edge key. OCR misreads a running header differently from page to page, so in a
 * document with OCR'd pages (up to FUZZY_MAX_PAGES) a key also counts pages with a near-identical key (bigram
 * Dice ≥ 0.8). Text layers match exactly: "First page …" and "Second page …" are different lines.
 */
function pageCounts(pageKeys: Set<string>[], ocr: boolean): Map<string, number> {
  const counts = new Map<string, number>();
  const all = [...new Set(pageKeys.flatMap((k) => [...k]))];
  const fuzzy = ocr && pageKeys.length <= FUZZY_MAX_PAGES;
  for (const key of all) {
    const near = fuzzy ? all.filter((k) => similarity(k, key) >= 0.8) : [key];
    counts.set(key, pageKeys.filter((keys) => near.some((k) => keys.has(k))).length);
  }
  return counts;
}

/** Keys of edge lines that repeat on most pages. */
function repeatedKeys(pages: PageLayout[]): Set<string> {
  const counts = pageCounts(
    pages.map((p) => new Set(edgeLines(p).map(keyOf))),
    pages.some((p) => p.ocr),
  );
  // Two pages that share an edge line may just be the same page twice (fake-memo-with-duplicate-page.pdf).
  if (pages.length < 3) return new Set();
  const min = Math.max(2, Math.ceil(pages.length * REPEAT_SHARE));
  return new Set([...counts].filter(([, n]) => n >= min).map(([k]) => k));
}

/**
 * Drop running headers and footers: edge lines that repeat on most pages (with digits generalised, so
 * "Page 3 of 9" matches), edge lines that are only a page number, and a page's first or last line when it is
 * a title with a page number set apart.
 */
export function dropFurniture(pages: PageLayout[]): PageLayout[] {
  const repeated = repeatedKeys(pages);
  return pages.map((page) => {
    const drop = new Set([
      ...edgeLines(page).filter((l) => repeated.has(keyOf(l)) || PAGE_NUMBER.test(lineText(l))),
      ...outermostLines(page).filter(isNumberedRunningHead),
    ]);
    return drop.size ? { ...page, items: page.items.filter((i) => !(i.kind === 'line' && drop.has(i))) } : page;
  });
}
