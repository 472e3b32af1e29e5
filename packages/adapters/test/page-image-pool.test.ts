import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdfPage } from '../src/converters/pdf/page-image.ts';
import { createConversionPool } from '../src/pool/convert-pool.ts';
import { makePdf, type PageSpec } from './converters/pdf-helpers.ts';

/** Issue 39: page images are drawn by the conversion pool's threads, bounded in size, and never hold the event loop. */

/** A letter page dense with small text: drawing it at full width takes a while. */
function densePage(seed: number): PageSpec {
  return {
    texts: Array.from({ length: 70 }, (_, i) => ({
      text: `Line ${i} of page ${seed}: ${'the quick brown fox jumps over '.repeat(3)}`,
      x: 36,
      y: 760 - i * 10,
      size: 8,
    })),
  };
}

const PAGES = 2;
const pdf = makePdf(Array.from({ length: PAGES }, (_, i) => densePage(i)));
const pngSize = (png: Uint8Array): { width: number; height: number } => ({
  width: Buffer.from(png).readUInt32BE(16),
  height: Buffer.from(png).readUInt32BE(20),
});

let pool: Awaited<ReturnType<typeof createConversionPool>>;
beforeAll(async () => {
  pool = await createConversionPool({ maxThreads: 2 });
});
afterAll(async () => {
  await pool?.close();
});

describe('page images in the conversion pool', () => {
  it('draws pages in worker threads: the event loop keeps turning while they are drawn', async () => {
    await pool.renderPage({ bytes: pdf, page: 1, maxWidth: 400 }); // threads started and warm
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    const drawn = await Promise.all(Array.from({ length: PAGES }, (_, i) => pool.renderPage({ bytes: pdf, page: i + 1, maxWidth: 1200 })));
    const elapsed = performance.now() - started;
    delay.disable();
    expect(drawn.every((d) => d.png.length > 1000)).toBe(true);
    // Drawing took long, yet no turn of the event loop waited more than a small part of it.
    const longestStallMs = delay.max / 1e6;
    expect(longestStallMs, `longest stall ${longestStallMs.toFixed(0)} ms of ${elapsed.toFixed(0)} ms drawing`).toBeLessThan(Math.max(300, elapsed / 3));
  });

  it('bounds the size whatever is asked: at most 200 DPI and 2000 pixels wide', async () => {
    const huge = await pool.renderPage({ bytes: pdf, page: 2, maxWidth: 100_000 });
    const { width, height } = pngSize(huge.png);
    expect(width).toBe(huge.width);
    expect(width).toBeLessThanOrEqual(Math.ceil((612 * 200) / 72));
    expect(height).toBeLessThanOrEqual(Math.ceil((792 * 200) / 72));
    const small = await pool.renderPage({ bytes: pdf, page: 2, maxWidth: 400 });
    expect(pngSize(small.png).width).toBeLessThanOrEqual(400);
  });

  it('answers a page past the last as not found, the same as drawing inline', async () => {
    await expect(pool.renderPage({ bytes: pdf, page: PAGES + 1, maxWidth: 400 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(renderPdfPage({ bytes: pdf, page: PAGES + 1, maxWidth: 400 })).rejects.toMatchObject({ code: 'not_found' });
  });
});
