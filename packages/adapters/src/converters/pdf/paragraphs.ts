import type { DocStats } from './stats.ts';
import { findTables } from './tables.ts';
import { isAllCaps } from './text.ts';
import { type Line, type PageLayout, type Sourced, lineText, pageBox, sourceLines } from './types.ts';

/** A page's content before headings are decided: groups of lines, tables and figures in reading order. */
export type Proto = Sourced &
  ({ kind: 'group'; lines: Line[]; ocr: boolean } | { kind: 'table'; rows: string[][] } | { kind: 'figure'; placeholder: string; alt: string });

/** Start of a list item: a bullet glyph, a dash followed by a space, `1.`, `2)`, `(3)`, `a)`, `(b)`, `(iv)`. */
export const LIST_START = /^(?:[•◦▪▫■□●○‣⁃∙·∗]\s*|[*–—-]\s+|\(?\d{1,3}[.)]\s+|[a-z][.)]\s+|\([a-zA-Z]\)\s+|\([ivx]{1,5}\)\s+)/;
const ENDS_SENTENCE = /[.!?:;"”)\]]$/;

const ratio = (a: number, b: number): number => Math.max(a, b) / Math.min(a, b);

/** Baseline distance beyond which two lines belong to different paragraphs. */
function paragraphGap(size: number, stats: DocStats, ocr: boolean): number {
  const usual = stats.bodyPitch !== undefined && Math.abs(size - stats.bodySize) < 0.75 ? stats.bodyPitch : 1.2 * size;
  return Math.max(usual * (ocr ? 1.5 : 1.3), 1.3 * size);
}

/** Starts like a list item or a hanging-indent number ("1 Customizable …"). */
const listish = (text: string): boolean => LIST_START.test(text) || /^\d{1,3}\s+\p{L}/u.test(text);
/** Bullet glyphs always start an item; numbers and letters only after a short line (else they are wrapped text). */
const BULLET_START = /^(?:[•◦▪▫■□●○‣⁃∙·∗]|[*–—-]\s)/;

/** Code continues across blank lines and indentation; only a wide gap or another column ends it. */
function breaksCode(prev: Line, cur: Line, stats: DocStats): boolean {
  return cur.top < prev.top || cur.y - prev.y > 2.5 * (stats.bodyPitch ?? 1.2 * cur.size);
}

/** Whether `cur` starts a new group after `prev` (group so far: `group`). */
function breaks(group: Line[], prev: Line, cur: Line, stats: DocStats, ocr: boolean): boolean {
  if (prev.mono && cur.mono) return breaksCode(prev, cur, stats);
  const size = Math.max(prev.size, cur.size);
  const text = lineText(cur);
  const prevText = lineText(prev);
  if (cur.top < prev.top - 0.5 * size) return ENDS_SENTENCE.test(prevText) || !/^[a-z]/.test(text); // next column
  if (cur.y - prev.y > paragraphGap(size, stats, ocr)) return true;
  if (ratio(prev.size, cur.size) > (ocr ? 1.25 : 1.12) || prev.bold !== cur.bold || prev.mono !== cur.mono) return true;
  const capsLine = isAllCaps(prevText) ? prevText : text;
  if (isAllCaps(prevText) !== isAllCaps(text) && capsLine.split(' ').length <= 8) return true; // "VITAL SIGNS" above text
  const right = Math.max(cur.x1, ...group.map((l) => l.x1));
  const prevShort = prev.x1 < right - 2 * size;
  const inItem = listish(lineText(group[0] as Line));
  if (BULLET_START.test(text) || (LIST_START.test(text) && (prevShort || inItem))) return true;
  if (!ENDS_SENTENCE.test(prevText)) return false;
  if (cur.x0 < prev.x0 - 0.8 * size && listish(text)) return true; // next item of a hanging-indent list
  const indented = cur.x0 > prev.x0 + 0.8 * size;
  if (indented && !(inItem && group.length === 1)) return true; // first-line indent of a new paragraph
  const widest = Math.max(...group.map((l) => l.x1 - l.x0), cur.x1 - cur.x0);
  return prev.x1 - prev.x0 < 0.7 * widest; // a short line ending a sentence ends its paragraph
}

function groupLines(lines: Line[], stats: DocStats, ocr: boolean): Line[][] {
  const groups: Line[][] = [];
  let cur: Line[] = [];
  for (const line of lines) {
    const prev = cur[cur.length - 1];
    if (prev && breaks(cur, prev, line, stats, ocr)) {
      groups.push(cur);
      cur = [];
    }
    cur.push(line);
  }
  if (cur.length) groups.push(cur);
  return groups;
}

/** A page's items as protos: tables first, then the lines between them grouped into paragraphs. */
export function pageProtos(page: PageLayout, stats: DocStats): Proto[] {
  const tables = findTables(page.items, page.ocr);
  const out: Proto[] = [];
  let pending: Line[] = [];
  const flush = (): void => {
    for (const lines of groupLines(pending, stats, page.ocr)) out.push({ kind: 'group', lines, ocr: page.ocr, src: sourceLines(lines, page) });
    pending = [];
  };
  for (let i = 0; i < page.items.length; i++) {
    const table = tables.find((t) => t.start === i);
    const item = page.items[i];
    if (table) {
      flush();
      const rows = page.items.slice(table.start, table.end).filter((it): it is Line => it.kind === 'line');
      out.push({ kind: 'table', rows: table.rows, src: sourceLines(rows, page) });
      i = table.end - 1;
    } else if (item?.kind === 'figure') {
      flush();
      const box = pageBox(item, page);
      out.push({ kind: 'figure', placeholder: item.placeholder, alt: item.alt, src: box ? [{ text: '', box }] : undefined });
    } else if (item) {
      pending.push(item);
    }
  }
  flush();
  return out;
}
