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

/** Width of a string on a terminal, ignoring colour codes (one column per code point is close enough here). */
export const visibleWidth = (s: string): number => [...s.replace(ANSI, '')].length;

/** Shorten to at most `max` columns with an ellipsis. */
export function truncate(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Shorten to at most `max` columns by cutting out the middle, so both ends (a file's name and extension) stay. */
export function truncateMiddle(s: string, max: number): string {
  const chars = [...s];
  if (chars.length <= max) return s;
  if (max < 2) return chars.slice(0, Math.max(0, max)).join('');
  const head = Math.floor((max - 1) / 2);
  const tail = max - 1 - head;
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - tail).join('')}`;
}

/** One line: newlines and runs of whitespace become single spaces. */
export const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();
