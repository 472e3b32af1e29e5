/** ANSI styles that are no-ops when colour is off for the stream they are written to. */
export interface Style {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const sgr = (on: boolean, open: number, close: number) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);

export function makeStyle(enabled: boolean): Style {
  return {
    enabled,
    bold: sgr(enabled, 1, 22),
    dim: sgr(enabled, 2, 22),
    red: sgr(enabled, 31, 39),
    green: sgr(enabled, 32, 39),
    yellow: sgr(enabled, 33, 39),
    cyan: sgr(enabled, 36, 39),
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences is the point
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Characters a terminal draws two columns wide: CJK, Hangul, kana, full-width forms, emoji. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]|\p{Extended_Pictographic}/u;
/** Characters that take no column: format characters (bidi controls, zero-width joiners) on their own. */
const ZERO_WIDTH = /^\p{Cf}+$/u;

/** Columns one grapheme takes on a terminal. */
const graphemeWidth = (g: string): number => (ZERO_WIDTH.test(g) ? 0 : WIDE.test(g) ? 2 : 1);

/** Width of a string on a terminal, ignoring colour codes: two columns for CJK and emoji, one for the rest. */
export function visibleWidth(s: string): number {
  let width = 0;
  for (const { segment } of graphemes.segment(s.replace(ANSI, ''))) width += graphemeWidth(segment);
  return width;
}

/** Shorten to at most `max` columns with an ellipsis, never splitting a character or an emoji sequence. */
export function truncate(s: string, max: number): string {
  if (visibleWidth(s) <= max) return s;
  return `${fitColumns(
    Array.from(graphemes.segment(s), (g) => g.segment),
    max - 1,
  ).join('')}…`;
}

/** Bidirectional controls, which would reorder the rest of a terminal line (a name can hide `exe.txt` as `txt.exe`). */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** A server-sent name made safe to print: bidirectional controls shown as `<U+202E>` instead of obeyed. */
export const printable = (s: string): string => s.replace(BIDI_CONTROLS, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);

/** The first graphemes of a list that fit in `max` columns. */
function fitColumns(list: string[], max: number): string[] {
  const kept: string[] = [];
  let width = 0;
  for (const g of list) {
    width += graphemeWidth(g);
    if (width > max) break;
    kept.push(g);
  }
  return kept;
}

/** Shorten to at most `max` columns by cutting out the middle, so both ends (a file's name and extension) stay. */
export function truncateMiddle(s: string, max: number): string {
  if (visibleWidth(s) <= max) return s;
  const list = Array.from(graphemes.segment(s), (g) => g.segment);
  if (max < 2) return fitColumns(list, Math.max(0, max)).join('');
  const head = fitColumns(list, Math.floor((max - 1) / 2));
  const tail = fitColumns(list.slice(head.length).reverse(), max - 1 - Math.floor((max - 1) / 2)).reverse();
  return `${head.join('')}…${tail.join('')}`;
}

/** One line: newlines and runs of whitespace become single spaces. */
export const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();
