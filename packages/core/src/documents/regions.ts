import { regionsKey } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { isDossierError } from '../domain/errors.ts';
import type { CellRange, Collection, PageBox, PassageLocation, SectionRecord } from '../domain/types.ts';
import { pageOffsetsOf, pageSpan } from './pages.ts';
import type { CellRegion, TextRegion } from '../ingest/converters/types.ts';
import { cellsOf, passageCells } from './cells.ts';

/** Where a passage sits on the original: the pages it spans and a few boxes covering its text there. */
export interface PassagePositions {
  pages: number[];
  regions: { page: number; box: PageBox }[];
  /** A spreadsheet passage's sheets and cell ranges. */
  cells?: CellRange[];
}

/** A passage's boxes beyond this many are merged page by page (a chunk keeps a bounded size in the index). */
export const MAX_PASSAGE_BOXES = 8;

/** Regions as stored: one `[start, end, page, x0, y0, x1, y1]` array per line, about 40 bytes a line. */
export function encodeRegions(regions: TextRegion[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(regions.map((r) => [r.start, r.end, r.page, ...r.box])));
}

/** Stored regions read back, ordered by start; malformed entries are skipped. */
export function decodeRegions(bytes: Uint8Array): TextRegion[] {
  const raw: unknown = JSON.parse(new TextDecoder().decode(bytes));
  if (!Array.isArray(raw)) return [];
  const out: TextRegion[] = [];
  for (const r of raw) {
    if (Array.isArray(r) && r.length === 7 && r.every((v) => typeof v === 'number')) {
      const [start, end, page, x0, y0, x1, y1] = r as number[];
      out.push({ start: start as number, end: end as number, page: page as number, box: [x0, y0, x1, y1] as PageBox });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** A document's stored regions, or null when it has none (not a PDF, or converted before regions were kept). */
export async function regionsOf(ctx: ContextPart<'blobs'>, c: Collection, documentId: string): Promise<TextRegion[] | null> {
  try {
    return decodeRegions(await ctx.blobs.get(regionsKey(c, documentId)));
  } catch (err) {
    if (isDossierError(err, 'not_found')) return null;
    throw err;
  }
}

/** Index of the first region ending after `offset` (regions ordered by start, so by end too: they do not nest). */
function firstEndingAfter(regions: TextRegion[], offset: number): number {
  let lo = 0;
  let hi = regions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((regions[mid] as TextRegion).end <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const union = (a: PageBox, b: PageBox): PageBox => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];

/** The next line continues a box: same page, same column (they overlap across), and at most a line's height below. */
function continuesBox(last: { page: number; box: PageBox }, next: TextRegion): boolean {
  const [x0, , x1, y1] = last.box;
  const height = next.box[3] - next.box[1];
  return last.page === next.page && next.box[0] < x1 && next.box[2] > x0 && next.box[1] >= y1 - height && next.box[1] - y1 <= height;
}

/** One box per page: what a passage's boxes become when there are too many of them. */
function perPage(boxes: { page: number; box: PageBox }[]): { page: number; box: PageBox }[] {
  const byPage = new Map<number, PageBox>();
  for (const b of boxes) byPage.set(b.page, byPage.has(b.page) ? union(byPage.get(b.page) as PageBox, b.box) : b.box);
  return [...byPage].map(([page, box]) => ({ page, box }));
}

/**
 * Where the characters [start, end) of a document's Markdown sit on its pages: the lines they touch, consecutive
 * lines of one column merged into one box, at most MAX_PASSAGE_BOXES boxes (else one per page). Null when no region
 * covers them.
 */
export function passagePositions(regions: TextRegion[], start: number, end: number): PassagePositions | null {
  const boxes: { page: number; box: PageBox }[] = [];
  for (let i = firstEndingAfter(regions, start); i < regions.length && (regions[i] as TextRegion).start < end; i++) {
    const r = regions[i] as TextRegion;
    const last = boxes[boxes.length - 1];
    if (last && continuesBox(last, r)) last.box = union(last.box, r.box);
    else boxes.push({ page: r.page, box: [...r.box] });
  }
  if (boxes.length === 0) return null;
  const kept = boxes.length > MAX_PASSAGE_BOXES ? perPage(boxes).slice(0, MAX_PASSAGE_BOXES) : boxes;
  return { pages: [...new Set(kept.map((b) => b.page))].sort((a, b) => a - b), regions: kept };
}

/** The pages from `first` to `last`, both included. */
const pageRange = (first: number, last: number): number[] => Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);

/** A passage's pages alone, from its document's page (or slide) start offsets: for formats with pages but no geometry. */
export function passagePages(offsets: number[], start: number, end: number): PassagePositions | null {
  if (offsets.length === 0) return null;
  const { pageStart, pageEnd } = pageSpan(offsets, start, end);
  return { pages: pageRange(pageStart, pageEnd), regions: [] };
}

/**
 * Positions as stored with a chunk: `[[page, x0, y0, x1, y1], …]`, `[page]` for a page the passage is on without
 * a box (a slide), and `[sheet, range]` for a spreadsheet's cells: the pages are those the entries name. Readers
 * that predate an entry shape skip it.
 */
export function encodePositions(p: PassagePositions): string {
  const boxed = new Set(p.regions.map((r) => r.page));
  const cells = (p.cells ?? []).map((c) => [c.sheet, c.range]);
  return JSON.stringify([...p.regions.map((r) => [r.page, ...r.box]), ...p.pages.filter((n) => !boxed.has(n)).map((n) => [n]), ...cells]);
}

const isNumbers = (r: unknown): r is number[] => Array.isArray(r) && r.every((v) => typeof v === 'number');
const isCellEntry = (r: unknown): r is [string, string] => Array.isArray(r) && r.length === 2 && r.every((v) => typeof v === 'string');

/** Stored chunk positions read back; null when absent or malformed. */
export function decodePositions(text: string | null | undefined): PassagePositions | null {
  if (!text) return null;
  try {
    const raw: unknown = JSON.parse(text);
    if (!Array.isArray(raw)) return null;
    const entries = raw.filter((r): r is number[] => isNumbers(r) && (r.length === 5 || r.length === 1));
    const regions = entries.filter((r) => r.length === 5).map(([page, x0, y0, x1, y1]) => ({ page: page as number, box: [x0, y0, x1, y1] as PageBox }));
    const pages = [...new Set(entries.map((r) => r[0] as number))].sort((a, b) => a - b);
    const cells = raw.filter(isCellEntry).map(([sheet, range]) => ({ sheet, range }));
    if (!pages.length && !cells.length) return null;
    return cells.length ? { pages, regions, cells } : { pages, regions };
  } catch {
    return null;
  }
}

/** What a document keeps about where its Markdown came from (each null when it has none). */
export interface StoredPositions {
  regions: TextRegion[] | null;
  pageOffsets: number[] | null;
  cells: CellRegion[] | null;
}

/** A document's stored regions, page offsets and cell map, read together. */
export async function storedPositionsOf(ctx: ContextPart<'blobs'>, c: Collection, documentId: string): Promise<StoredPositions> {
  const [regions, pageOffsets, cells] = await Promise.all([regionsOf(ctx, c, documentId), pageOffsetsOf(ctx, c, documentId), cellsOf(ctx, c, documentId)]);
  return { regions, pageOffsets, cells };
}

/**
 * Where the characters [start, end) of a document's Markdown came from: boxes on pages (PDFs), else pages alone
 * (slides), and the cell ranges of a spreadsheet; null when nothing is known.
 */
export function locatePassage(stored: StoredPositions, start: number, end: number): PassagePositions | null {
  const at = (stored.regions && passagePositions(stored.regions, start, end)) || (stored.pageOffsets && passagePages(stored.pageOffsets, start, end)) || null;
  const cells = stored.cells && passageCells(stored.cells, start, end);
  if (!cells) return at;
  return { pages: at?.pages ?? [], regions: at?.regions ?? [], cells };
}

/** A chunk row's location fields (an index written before rows carried them gives none). */
export function chunkLocation(row: { charStart?: number | null; charEnd?: number | null; positions?: string | null }): PassageLocation {
  const out: PassageLocation = {};
  if (typeof row.charStart === 'number' && typeof row.charEnd === 'number') out.span = { start: row.charStart, end: row.charEnd };
  const p = decodePositions(row.positions);
  if (p?.pages.length) out.pages = p.pages;
  if (p?.regions.length) out.regions = p.regions;
  if (p?.cells?.length) out.cells = p.cells;
  return out;
}

/**
 * Where sections are in their documents (a section scan's results): each one's span, and for a paged original its
 * pages and (bounded) boxes. The documents' stored page offsets and regions are read once each.
 */
export async function sectionLocations(ctx: ContextPart<'blobs'>, c: Collection, sections: SectionRecord[]): Promise<Map<string, PassageLocation>> {
  const docIds = [...new Set(sections.map((s) => s.documentId))];
  const byDoc = new Map(await Promise.all(docIds.map(async (id) => [id, await storedPositionsOf(ctx, c, id)] as const)));
  const out = new Map<string, PassageLocation>();
  for (const s of sections) {
    const stored = byDoc.get(s.documentId);
    const at = stored && locatePassage(stored, s.markdownOffsetStart, s.markdownOffsetEnd);
    const location: PassageLocation = { span: { start: s.markdownOffsetStart, end: s.markdownOffsetEnd } };
    if (at?.pages.length) location.pages = at.pages;
    if (at?.regions.length) location.regions = at.regions;
    if (at?.cells?.length) location.cells = at.cells;
    out.set(s.id, location);
  }
  return out;
}
