import type { Line, PageLayout } from './types.ts';

/** What "ordinary text" looks like in a document: the yardstick for headings and paragraph breaks. */
export interface DocStats {
  /** Most common font size, weighted by characters. */
  bodySize: number;
  /** Most of the body-size text is bold (then bold says nothing about headings). */
  bodyBold: boolean;
  /** Most common baseline-to-baseline distance between wrapped body lines, or undefined when unknown. */
  bodyPitch: number | undefined;
}

const round = (n: number): number => Math.round(n * 2) / 2;

function modeOf(weights: Map<number, number>): number | undefined {
  let best: number | undefined;
  let bestWeight = 0;
  for (const [value, w] of weights) if (w > bestWeight) [best, bestWeight] = [value, w];
  return best;
}

const add = (m: Map<number, number>, key: number, w: number): void => {
  m.set(key, (m.get(key) ?? 0) + w);
};

const chars = (l: Line): number => l.cells.reduce((n, c) => n + c.text.length, 0);

/** Body size, boldness and line pitch over every page. */
export function docStats(pages: PageLayout[]): DocStats {
  const lines = pages.flatMap((p) => p.items.filter((i): i is Line => i.kind === 'line'));
  const sizes = new Map<number, number>();
  for (const l of lines) add(sizes, round(l.size), chars(l));
  const bodySize = modeOf(sizes) ?? 10;
  const body = lines.filter((l) => round(l.size) === bodySize);
  const boldChars = body.reduce((n, l) => n + (l.bold ? chars(l) : 0), 0);
  const pitches = new Map<number, number>();
  for (const page of pages) {
    const pl = page.items.filter((i): i is Line => i.kind === 'line' && round(i.size) === bodySize);
    const widest = Math.max(0, ...pl.map((l) => l.x1 - l.x0));
    for (let i = 1; i < pl.length; i++) {
      const [prev, cur] = [pl[i - 1] as Line, pl[i] as Line];
      const d = cur.y - prev.y;
      // Only wrapped lines (the one above fills the column) say how far apart a paragraph's lines are:
      // a memo's short lines with blank lines between would otherwise pass for double spacing.
      if (prev.x1 - prev.x0 >= 0.8 * widest && d > 0.8 * bodySize && d < 2.5 * bodySize) add(pitches, round(d), 1);
    }
  }
  return { bodySize, bodyBold: boldChars > 0.6 * body.reduce((n, l) => n + chars(l), 0), bodyPitch: modeOf(pitches) };
}
