import { DossierError } from '@dossier/core/conversion';
import { openPdf } from './pdfjs.ts';
import { renderPage } from './render.ts';

/** A page image is never drawn finer than this (a 1600-pixel-wide image of a letter page is about 180 DPI). */
const MAX_PAGE_IMAGE_DPI = 200;
/** …nor wider than this, whatever is asked. */
const MAX_PAGE_IMAGE_WIDTH = 2000;

/** One page of a PDF drawn as PNG, at most `maxWidth` pixels wide (and at most MAX_PAGE_IMAGE_DPI). */
export async function renderPdfPage(input: { bytes: Uint8Array; page: number; maxWidth: number }): Promise<{ png: Uint8Array; width: number; height: number }> {
  const doc = await openPdf(input.bytes);
  try {
    if (!Number.isInteger(input.page) || input.page < 1 || input.page > doc.numPages) {
      throw new DossierError('not_found', `Page ${input.page} not found (the PDF has ${doc.numPages})`);
    }
    const page = await doc.getPage(input.page);
    try {
      const base = page.getViewport({ scale: 1 });
      const width = Math.min(Math.max(1, input.maxWidth), MAX_PAGE_IMAGE_WIDTH);
      const dpi = Math.min(MAX_PAGE_IMAGE_DPI, (72 * width) / Math.max(1, base.width));
      const { png, scale } = await renderPage(doc, page, dpi);
      return { png, width: Math.ceil(base.width * scale), height: Math.ceil(base.height * scale) };
    } finally {
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
}
