import { type ConvertInput, type ConvertResult, DossierError } from '@dossier/core/conversion';
import { toBlocks } from './blocks.ts';
import { dropFurniture } from './furniture.ts';
import { IMAGE_RESOLVE_MS, ImageCollector, imageData } from './images.ts';
import { layoutPage } from './layout.ts';
import { renderPages } from './markdown.ts';
import { ocrRuns } from './ocr.ts';
import type { ResolvedPdfOptions } from './options.ts';
import { pageProtos } from './paragraphs.ts';
import { loadPdfjs, openPdf, type PdfDocument, type PdfPage } from './pdfjs.ts';
import { isPageImage, needsOcr, type PageContent, readPage } from './page-read.ts';
import { renderPage } from './render.ts';
import { docStats } from './stats.ts';
import type { Block, PageLayout } from './types.ts';

const EOF_MARKER = Buffer.from('%%EOF');

/** A PDF without its `%%EOF` marker was cut short; pdf.js would silently return whatever it could salvage. */
function assertComplete(bytes: Uint8Array): void {
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).lastIndexOf(EOF_MARKER) < 0) {
    throw new DossierError('conversion_failed', 'The PDF is truncated or corrupt: its end-of-file marker is missing');
  }
}

async function getPage(doc: PdfDocument, n: number): Promise<PdfPage> {
  try {
    return await doc.getPage(n);
  } catch (err) {
    throw new DossierError('conversion_failed', `Page ${n} of the PDF is corrupt and could not be read`, { cause: err });
  }
}

/** Below this, rendering a scan larger than its pixels helps tesseract (MEDRPT's 150 DPI scan reads best at 200). */
const MIN_OCR_DPI = 200;

/**
 * Resolution to render a page for OCR: the scan's own, so no detail is invented or lost, within
 * [MIN_OCR_DPI, maxDpi]; `maxDpi` when the page has no decoded image (text drawn as outlines).
 */
async function ocrDpi(page: PdfPage, content: PageContent, maxDpi: number): Promise<number> {
  let native: number | undefined;
  const deadline = Date.now() + IMAGE_RESOLVE_MS;
  for (const im of content.images) {
    const img = im.objId ? await imageData(page, im.objId, deadline) : undefined;
    const inches = (im.x1 - im.x0) / 72;
    if (img && inches > 0) native = Math.max(native ?? 0, img.width / inches);
  }
  return native === undefined ? maxDpi : Math.min(maxDpi, Math.max(MIN_OCR_DPI, native));
}

/** State of one conversion: limits, the images found, and how many pages went through OCR. */
interface Job {
  doc: PdfDocument;
  opts: ResolvedPdfOptions;
  images: ImageCollector;
  ocrPages: number;
}

/** One page's layout, from its text layer or, when it has none, from OCR of its rendering. */
async function pageLayout(job: Job, n: number): Promise<PageLayout> {
  const pdfjs = await loadPdfjs();
  const page = await getPage(job.doc, n);
  try {
    const content = await readPage(page, pdfjs);
    const size = { width: content.width, height: content.height };
    if (!needsOcr(content)) {
      const figures = await job.images.collect(
        page,
        content.images.filter((im) => !isPageImage(im, content)),
      );
      return layoutPage(content.runs, figures, size, false);
    }
    if (job.ocrPages >= job.opts.maxOcrPages) {
      return {
        ...size,
        items: [],
        ocr: true,
        note: `Page ${n} is a scanned page and was not OCR'd: the limit of ${job.opts.maxOcrPages} OCR pages per document was reached`,
      };
    }
    job.ocrPages += 1;
    const { png, scale } = await renderPage(job.doc, page, await ocrDpi(page, content, job.opts.ocrDpi));
    return layoutPage(await ocrRuns(png, scale), [], size, true);
  } finally {
    page.cleanup();
  }
}

/** Number images 1, 2, 3 … in the order the Markdown shows them (pages paint in their own order). */
function renumberImages(pages: Block[][], images: ImageCollector): ConvertResult['images'] {
  const rename = new Map<string, string>();
  for (const b of pages.flat()) {
    if (b.kind === 'image') {
      if (!rename.has(b.placeholder)) rename.set(b.placeholder, `dossier://img-${rename.size + 1}`);
      b.placeholder = rename.get(b.placeholder) as string;
      b.alt = b.alt.replace(/^Image \d+$/, `Image ${b.placeholder.slice('dossier://img-'.length)}`);
    }
  }
  return images.images.filter((i) => rename.has(i.placeholder)).map((i) => ({ ...i, placeholder: rename.get(i.placeholder) as string }));
}

function toMarkdown(layouts: PageLayout[], images: ImageCollector): ConvertResult {
  const pages = dropFurniture(layouts);
  const stats = docStats(pages);
  const blocks = toBlocks(
    pages.map((p) => pageProtos(p, stats)),
    stats,
  );
  pages.forEach((p, i) => {
    if (p.note) blocks[i]?.unshift({ kind: 'note', text: p.note });
  });
  const extracted = renumberImages(blocks, images);
  return { ...renderPages(blocks), images: extracted };
}

/**
 * A PDF as Markdown. Pages with a text layer are laid out from it; pages without one (scans) are rendered and
 * OCR'd. Headings, paragraphs, lists, tables and code are inferred from the layout; running headers,
 * footers and page numbers are dropped; `pageOffsets` gives where each page starts.
 */
export async function convertPdf(input: ConvertInput, opts: ResolvedPdfOptions): Promise<ConvertResult> {
  assertComplete(input.bytes);
  const doc = await openPdf(input.bytes);
  try {
    if (doc.numPages > opts.maxPages) {
      throw new DossierError('conversion_failed', `The PDF has ${doc.numPages} pages; at most ${opts.maxPages} are converted`);
    }
    const job: Job = { doc, opts, images: new ImageCollector(opts), ocrPages: 0 };
    const layouts: PageLayout[] = [];
    for (let n = 1; n <= doc.numPages; n++) layouts.push(await pageLayout(job, n));
    const result = toMarkdown(layouts, job.images);
    if (!result.markdown.trim()) throw new DossierError('conversion_failed', 'The PDF contains no text, no readable scanned pages and no images');
    return result;
  } finally {
    await doc.destroy();
  }
}
