import type { DocStats } from './stats.ts';
import { isAllCaps } from './text.ts';

/** What heading inference needs to know about a group of lines. */
export interface GroupStyle {
  text: string;
  lines: number;
  size: number;
  bold: boolean;
  ocr: boolean;
}

/** Section numbering at the start of a heading: `1`, `2.3.4`, `IV.`, `B.` (depth = number of parts). */
export function numberingDepth(text: string): number | undefined {
  const decimal = /^(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+\p{L}/u.exec(text);
  if (decimal) return (decimal[1] as string).split('.').length;
  if (/^[IVX]{1,5}\.\s+\p{L}/u.test(text)) return 1;
  if (/^[A-Z]\.\s+\p{L}/u.test(text)) return 2;
  return undefined;
}

/** Size ratio over body text that makes a heading on its own (OCR size estimates are noisier). */
const sizeRatio = (ocr: boolean): number => (ocr ? 1.3 : 1.15);

/**
 * Whether a group of lines is a heading: short, not ending like a sentence, and set apart by size, by bold
 * (when body text is not bold), by capitals, or by section numbering plus a typographic cue.
 */
export function isHeading(g: GroupStyle, stats: DocStats): boolean {
  const words = g.text.split(/\s+/).length;
  if (g.lines > 2 || g.text.length > 150 || words > 20 || !/\p{L}{2}/u.test(g.text) || /[,;]$/.test(g.text)) return false;
  const r = g.size / stats.bodySize;
  if (/\.$/.test(g.text) && !/\.\.\.$/.test(g.text) && r < 1.3) return false;
  const bold = g.bold && !stats.bodyBold && g.lines <= 2 && g.text.length <= 100;
  const caps = isAllCaps(g.text) && g.lines === 1 && words <= 8 && r >= 0.95;
  if (r >= sizeRatio(g.ocr) || bold || caps) return true;
  return numberingDepth(g.text) !== undefined && r >= 1.05;
}

/** Heading sizes this close (as a share) are one style: a document's pages may be scaled slightly differently. */
const SAME_SIZE = 0.1;

interface StyleKey {
  size: number;
  bold: boolean;
  caps: boolean;
}

/** Headings' styles in rank order: larger first, then bold, then capitals; sizes within 10% count as one. */
function rankStyles(styles: StyleKey[]): StyleKey[] {
  const sorted = [...styles].sort((a, b) => b.size - a.size || Number(b.bold) - Number(a.bold) || Number(b.caps) - Number(a.caps));
  const ranked: StyleKey[] = [];
  for (const s of sorted) {
    const same = ranked.find((r) => r.bold === s.bold && r.caps === s.caps && Math.abs(r.size - s.size) <= SAME_SIZE * r.size);
    if (!same) ranked.push(s);
  }
  return ranked;
}

const styleOf = (g: GroupStyle): StyleKey => ({ size: g.size, bold: g.bold, caps: isAllCaps(g.text) });

/**
 * Markdown levels for a document's headings. Numbered headings take their depth, pushed down by the number of
 * heading styles set larger than all of them (a title); the others take their style's rank: largest `#`,
 * next `##`, the rest `###`.
 */
export function headingLevels(headings: GroupStyle[]): (1 | 2 | 3)[] {
  const ranked = rankStyles(headings.map(styleOf));
  const numbered = headings.filter((h) => numberingDepth(h.text) !== undefined);
  const maxNumbered = Math.max(0, ...numbered.map((h) => h.size));
  // Unnumbered heading styles set larger than every numbered heading sit above them (a title, a part).
  const above = ranked.filter((r) => r.size > maxNumbered * 1.06).length;
  return headings.map((h) => {
    const depth = numberingDepth(h.text);
    const s = styleOf(h);
    const rank = ranked.findIndex((r) => r.bold === s.bold && r.caps === s.caps && Math.abs(r.size - s.size) <= SAME_SIZE * r.size);
    const level = depth !== undefined ? depth + above : Math.max(rank, 0) + 1;
    return Math.min(3, level) as 1 | 2 | 3;
  });
}
