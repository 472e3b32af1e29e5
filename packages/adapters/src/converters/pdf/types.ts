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

/** A unit of Markdown output. */
export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: ListItem[] }
  | { kind: 'table'; rows: string[][] }
  | { kind: 'code'; text: string }
  | { kind: 'image'; placeholder: string; alt: string }
  | { kind: 'note'; text: string };

export interface ListItem {
  /** `-` for bullets, or the original number with its `.` or `)`. */
  marker: string;
  text: string;
}

/** Text of a line: its cells joined by single spaces. */
export const lineText = (line: Line): string => line.cells.map((c) => c.text).join(' ');
