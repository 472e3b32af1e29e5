/** A piece of text placed on a page, in top-down page points (y grows downwards, as on screen). */
export interface Run {
  text: string;
  /** Left edge. */
  x: number;
  /** Baseline. */
  y: number;
  width: number;
  /** Font size (em height) in points. */
  size: number;
  bold: boolean;
  mono: boolean;
  /** Starts a new cell whatever the gap (a table rule stood before it). */
  cellStart?: boolean;
}

/** Text of a line between two wide horizontal gaps: a table cell, a column's share of a line, or the whole line. */
export interface Cell {
  text: string;
  x0: number;
  x1: number;
}

/** One visual line of text (or one column's part of it). */
export interface Line {
  kind: 'line';
  cells: Cell[];
  x0: number;
  x1: number;
  /** Baseline. */
  y: number;
  top: number;
  bottom: number;
  /** Dominant font size, weighted by characters. */
  size: number;
  /** Most of the characters are bold. */
  bold: boolean;
  /** (Almost) all characters are monospaced. */
  mono: boolean;
}

/** An embedded image, placed where it was painted. */
export interface Figure {
  kind: 'figure';
  placeholder: string;
  alt: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

export type PageItem = Line | Figure;

/** What one page contributes: its items in reading order and where they came from. */
export interface PageLayout {
  width: number;
  height: number;
  items: PageItem[];
  /** The text came from OCR, so sizes are estimates and there is no bold. */
  ocr: boolean;
  /** Set when the page was left out (e.g. the OCR page cap); rendered as a visible note. */
  note?: string;
}

/** A box on a page as fractions of its width and height: [x0, y0, x1, y1], origin top-left. */
export type PageBox = [number, number, number, number];

/** A line a block was made from: its text (as read) and where it sat on its page. */
export interface SourceLine {
  text: string;
  box: PageBox;
}

/** Where a block's text came from, line by line in reading order (absent when unknown, e.g. an image upload). */
export interface Sourced {
  src?: SourceLine[];
}

/** A unit of Markdown output. */
export type Block = Sourced &
  (
    | { kind: 'heading'; level: 1 | 2 | 3; text: string }
    | { kind: 'paragraph'; text: string }
    | { kind: 'list'; items: ListItem[] }
    | { kind: 'table'; rows: string[][] }
    | { kind: 'code'; text: string }
    | { kind: 'image'; placeholder: string; alt: string }
    | { kind: 'note'; text: string }
  );

export interface ListItem {
  /** `-` for bullets, or the original number with its `.` or `)`. */
  marker: string;
  text: string;
}

/** Text of a line: its cells joined by single spaces. */
export const lineText = (line: Line): string => line.cells.map((c) => c.text).join(' ');

const fraction = (v: number, of: number): number => Math.round(Math.min(1, Math.max(0, v / of)) * 10_000) / 10_000;

/** An item's box as fractions of its page (four decimals), or undefined when the page has no known size. */
export function pageBox(item: { x0: number; x1: number; top: number; bottom: number }, page: { width: number; height: number }): PageBox | undefined {
  if (!(page.width > 0 && page.height > 0)) return undefined;
  return [fraction(item.x0, page.width), fraction(item.top, page.height), fraction(item.x1, page.width), fraction(item.bottom, page.height)];
}

/** The lines' source records on a page of that size; none when the page size is unknown. */
export function sourceLines(lines: Line[], page: { width: number; height: number }): SourceLine[] | undefined {
  const out: SourceLine[] = [];
  for (const l of lines) {
    const box = pageBox(l, page);
    if (box) out.push({ text: lineText(l), box });
  }
  return out.length ? out : undefined;
}
