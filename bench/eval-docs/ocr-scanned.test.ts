import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { closeOcr } from '../../packages/adapters/src/converters/pdf/index.ts';
import { openPdf } from '../../packages/adapters/src/converters/pdf/pdfjs.ts';
import { renderPage } from '../../packages/adapters/src/converters/pdf/render.ts';
import { convertBytes, pagesOf } from '../../packages/adapters/test/converters/pdf-helpers.ts';
import { EVAL_DOCS as DOCS } from './docs.ts';

const load = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DOCS, name)));
/** Packages of @dossier/adapters (bench/ does not depend on them itself). */
const fromAdapters = (name: string) =>
  import(pathToFileURL(createRequire(new URL('../../packages/adapters/package.json', import.meta.url)).resolve(name)).href);

/** The part of @napi-rs/canvas this file uses. */
interface CanvasModule {
  loadImage(bytes: Buffer): Promise<{ width: number; height: number }>;
  createCanvas(
    width: number,
    height: number,
  ): {
    getContext(kind: '2d'): {
      drawImage(image: unknown, x: number, y: number): void;
      getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
    };
  };
}

const suite = 'OCR of scanned PDFs and images (tesseract.js, English data from the package)';

/** A page of a PDF drawn as PNG, standing in for a photo or scan someone uploads. */
async function pagePng(name: string, dpi: number): Promise<Uint8Array> {
  const doc = await openPdf(load(name));
  try {
    return (await renderPage(doc, await doc.getPage(1), dpi)).png;
  } finally {
    await doc.destroy();
  }
}

/** The same picture as an uncompressed TIFF (tesseract.js cannot read TIFF, so this goes through utif2). */
async function pngToTiff(png: Uint8Array): Promise<Uint8Array> {
  const { createCanvas, loadImage } = (await fromAdapters('@napi-rs/canvas')) as CanvasModule;
  const img = await loadImage(Buffer.from(png));
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const rgba = ctx.getImageData(0, 0, img.width, img.height).data;
  const utif = (await fromAdapters('utif2')) as { default: { encodeImage(rgba: Uint8Array, w: number, h: number): ArrayBuffer } };
  return new Uint8Array(utif.default.encodeImage(new Uint8Array(rgba.buffer), img.width, img.height));
}

describe(suite, () => {
  afterAll(() => closeOcr());

  it('OCRs a scanned page into headings, a table and paragraphs, and marks pages past the OCR cap', async () => {
    const r = await convertBytes(load('markitdown__MEDRPT-2024-PAT-3847_medical_report_scan.pdf'), 'report.pdf', { maxOcrPages: 1 });
    const [first, second, third] = pagesOf(r);
    expect(first).toMatch(/^# SEATTLE GENERAL HOSPITAL\n/);
    expect(first).toMatch(/^## VITAL SIGNS$/m);
    expect(first).toMatch(/^\| Measurement \| Value \| Normal Range \| Status \|$/m);
    expect(first).toMatch(/^\| Heart Rate \| 78 bpm \| 60-100 bpm \| NORMAL \|$/m);
    expect(first).toContain('Patient presents with persistent headaches');
    expect(first).toMatch(/^- No known drug allergies$/m);
    expect(first).not.toMatch(/Page 1 [o0]f ?3/);
    expect(second).toBe("*[Page 2 is a scanned page and was not OCR'd: the limit of 1 OCR pages per document was reached]*\n\n");
    expect(third).toMatch(/^\*\[Page 3 is a scanned page/);
    expect(r.images).toEqual([]);
  }, 60_000);

  it('OCRs an image-only PDF of a ruled table into a GFM table, without the rules', async () => {
    const r = await convertBytes(load('unstructured__single_table.pdf'), 'table.pdf');
    const rows = r.markdown.trim().split('\n');
    expect(rows[0]).toMatch(/^\| Processing/);
    expect(rows[1]).toMatch(/^\|( --- \|){3,}$/);
    expect(rows).toHaveLength(6);
    expect(r.markdown).toMatch(/^\| Base 256 \| 32,051 \| 400\.64 \(242\.04\) \| N\/A \|$/m);
    expect(r.markdown).toMatch(/^\| Chipper \| 20,843 \| 260\.57 \(145\.80\) \| 96\.20 \(57\.53\) \|$/m);
  }, 60_000);

  it('OCRs an uploaded PNG and TIFF, returning the original picture as the first image', async () => {
    const png = await pagePng('unstructured__fake-memo.pdf', 150);
    const tiff = await pngToTiff(png);
    for (const [bytes, name, type] of [
      [png, 'memo scan.png', 'image/png'],
      [tiff, 'memo.tiff', 'image/tiff'],
    ] as const) {
      const r = await convertBytes(bytes, name);
      expect(r.markdown).toMatch(new RegExp(`^!\\[${name.replace(/\.\w+$/, '')}\\]\\(dossier://img-1\\)\n\nMay 5, 2023\n\nTo Whom it May Concern:`));
      expect(r.markdown).toContain('There were 20,000 bottles of water, 10,000 blankets, and 200 laptops delivered');
      expect(r.images.map((i) => [i.placeholder, i.mimeType])).toEqual([['dossier://img-1', type]]);
      expect(r.images[0]?.bytes).toBe(bytes); // the upload itself, not a re-encoding (no deep compare of megabytes)
      expect(r.pageOffsets).toBeUndefined();
    }
    expect(existsSync('eng.traineddata')).toBe(false); // nothing cached next to the process: data is read from the package
  }, 60_000);
});
