import { readingOrder } from './columns.ts';
import { buildLines } from './lines.ts';
import type { Figure, PageLayout, Run } from './types.ts';

/**
 * A page's layout: runs grouped into lines and cells, then put in reading order together with its figures.
 * Used alike for a PDF text layer and for OCR words.
 */
export function layoutPage(runs: Run[], figures: Figure[], size: { width: number; height: number }, ocr: boolean): PageLayout {
  return { width: size.width, height: size.height, items: readingOrder(buildLines(runs, ocr), figures), ocr };
}
