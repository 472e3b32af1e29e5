import type { PdfDocument, PdfPage } from './pdfjs.ts';

/** Rendered pages larger than this are drawn at a lower resolution (memory stays bounded). */
const MAX_RENDER_PIXELS = 40_000_000;

/** A page drawn as PNG at `dpi` (pdf.js through its bundled canvas), and the points-to-pixels scale used. */
export async function renderPage(doc: PdfDocument, page: PdfPage, dpi: number): Promise<{ png: Uint8Array; scale: number }> {
  const base = page.getViewport({ scale: 1 });
  const wanted = dpi / 72;
  const scale = Math.min(wanted, Math.sqrt(MAX_RENDER_PIXELS / Math.max(1, base.width * base.height)));
  const viewport = page.getViewport({ scale });
  const target = doc.canvasFactory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
  try {
    await page.render({ canvas: target.canvas, canvasContext: target.context, viewport }).promise;
    return { png: new Uint8Array(target.canvas.toBuffer('image/png')), scale };
  } finally {
    doc.canvasFactory.destroy(target);
  }
}
