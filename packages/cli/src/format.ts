import type { Style } from './style.ts';

/** 1234567 → "1.2 MB". */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** "2025-01-02T03:04:05.678Z" → "2025-01-02 03:04". */
export const shortDate = (iso: string): string => iso.replace('T', ' ').slice(0, 16);

/** A number or "-" for null. */
export const num = (n: number | null | undefined): string => (n === null || n === undefined ? '-' : String(n));

/** A document status, green when ready and red on error. */
export function status(s: Style, value: string): string {
  if (value === 'ready') return s.green(value);
  if (value === 'error') return s.red(value);
  return s.yellow(value);
}

/** `key: value` lines, aligned, for one record. */
export function fields(rows: [string, string][], s: Style): string[] {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${s.dim(`${k}:`.padEnd(width + 1))} ${v}`);
}

/** A JSON value as one short line (metadata, tags). */
export const compact = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** "1 section", "3 sections". */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
