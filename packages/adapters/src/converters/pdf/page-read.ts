import type { Pdfjs, PdfOperatorList, PdfPage, PdfTextItem } from './pdfjs.ts';
import type { Run } from './types.ts';

/** An image painted on a page: its pdf.js object id and where it lands (top-down page points). */
export interface PaintedImage {
  objId: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

/** What a page holds before layout. */
export interface PageContent {
  width: number;
  height: number;
  runs: Run[];
  images: PaintedImage[];
  /** Share of the page area covered by images (can exceed 1 when they overlap). */
  imageCover: number;
  /** Vector paths drawn: text converted to outlines shows up here. */
  paths: number;
}

const BOLD_FONT = /bold|black|heavy|demi|semi|medi|cmbx|cmb\d|-bd|,b$|-b$/i;
const MONO_FONT = /mono|courier|consol|cmtt|sftt|menlo|typewriter|inconsolata|lucidaconsole/i;

interface FontInfo {
  bold: boolean;
  mono: boolean;
}

/** Bold and monospace from the font's name and flags (needs the operator list to have loaded the fonts). */
function fontInfo(page: PdfPage, fontName: string, family: string | undefined, cache: Map<string, FontInfo>): FontInfo {
  const known = cache.get(fontName);
  if (known) return known;
  let font: { name?: string; bold?: boolean; black?: boolean } = {};
  try {
    font = (page.commonObjs.get(fontName) ?? {}) as typeof font;
  } catch {
    // A font pdf.js could not load: it still has text, just no style.
  }
  const name = font.name ?? '';
  const info = { bold: Boolean(font.bold || font.black) || BOLD_FONT.test(name), mono: family === 'monospace' || MONO_FONT.test(name) };
  cache.set(fontName, info);
  return info;
}

/** Text runs in top-down page points; rotated text is moved below the page so it reads last. */
async function readRuns(page: PdfPage, pdfjs: Pdfjs, height: number): Promise<Run[]> {
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const fonts = new Map<string, FontInfo>();
  const runs: Run[] = [];
  let rotated = 0;
  for (const raw of content.items) {
    if (!('str' in raw) || !raw.str) continue;
    const item = raw as PdfTextItem;
    const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = pdfjs.Util.transform(viewport.transform, item.transform);
    const size = Math.hypot(c, d);
    const info = fontInfo(page, item.fontName, content.styles[item.fontName]?.fontFamily, fonts);
    const horizontal = Math.abs(b) < 0.05 * Math.abs(a) && a > 0;
    if (horizontal) runs.push({ text: item.str, x: e, y: f, width: item.width, size, ...info });
    else {
      rotated += 2;
      runs.push({ text: item.str, x: 0, y: height + rotated * size, width: item.width, size, ...info });
    }
  }
  return runs;
}

/** Apply transform m2 after m1 (pdf.js matrix order). */
const mul = (m1: number[], m2: number[]): number[] => {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = m1;
  const [A = 1, B = 0, C = 0, D = 1, E = 0, F = 0] = m2;
  return [a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D, a * E + c * F + e, b * E + d * F + f];
};

/** Bounding box of the unit square under matrix m. */
function unitBox(m: number[]): { x0: number; x1: number; top: number; bottom: number } {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = m;
  const xs = [e, a + e, c + e, a + c + e];
  const ys = [f, b + f, d + f, b + d + f];
  return { x0: Math.min(...xs), x1: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) };
}

/** Walk the operator list, tracking the transformation matrix, to find where images are painted. */
function paintedImages(ops: PdfOperatorList, pdfjs: Pdfjs, base: number[]): { images: PaintedImage[]; paths: number } {
  const O = pdfjs.OPS;
  const stack: number[][] = [];
  let ctm = base;
  const images: PaintedImage[] = [];
  let paths = 0;
  ops.fnArray.forEach((fn, i) => {
    const args = ops.argsArray[i] ?? [];
    if (fn === O.save) stack.push(ctm);
    else if (fn === O.restore) ctm = stack.pop() ?? base;
    else if (fn === O.transform) ctm = mul(ctm, args as number[]);
    else if (fn === O.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args[0])) ctm = mul(ctm, args[0] as number[]);
    } else if (fn === O.paintFormXObjectEnd) ctm = stack.pop() ?? base;
    else if (fn === O.constructPath) paths += 1;
    else if (fn === O.paintImageXObject && typeof args[0] === 'string') images.push({ objId: args[0], ...unitBox(ctm) });
    else if (fn === O.paintInlineImageXObject || fn === O.paintImageMaskXObject) images.push({ objId: '', ...unitBox(ctm) });
  });
  return { images, paths };
}

function coverOf(images: PaintedImage[], width: number, height: number): number {
  const area = images.reduce((n, im) => {
    const w = Math.min(im.x1, width) - Math.max(im.x0, 0);
    const h = Math.min(im.bottom, height) - Math.max(im.top, 0);
    return n + (w > 0 && h > 0 ? w * h : 0);
  }, 0);
  return area / (width * height);
}

/** A page's text runs, painted images and vector drawing count. */
export async function readPage(page: PdfPage, pdfjs: Pdfjs): Promise<PageContent> {
  const viewport = page.getViewport({ scale: 1 });
  // The operator list loads the fonts (for bold/monospace) and lists the images.
  const ops = await page.getOperatorList();
  const runs = await readRuns(page, pdfjs, viewport.height);
  const { images, paths } = paintedImages(ops, pdfjs, viewport.transform);
  return { width: viewport.width, height: viewport.height, runs, images, imageCover: coverOf(images, viewport.width, viewport.height), paths };
}

/** Visible characters of the page's text layer. */
export const textChars = (c: PageContent): number => c.runs.reduce((n, r) => n + r.text.replace(/\s/g, '').length, 0);

/** Share of the text layer's words that look like OCR debris: lone letters ("A l e t t e r"), stray symbols. */
function debrisShare(c: PageContent): number {
  const words = c.runs.flatMap((r) => r.text.split(/\s+/)).filter(Boolean);
  const debris = words.filter((w) => /^[b-zB-HJ-Z]$/.test(w) || /[«»^©£¥§¤¬¦]/.test(w)).length;
  return words.length ? debris / words.length : 0;
}

/** A page image this large is a scan or a background, not a figure. */
export const isPageImage = (im: PaintedImage, c: PageContent): boolean =>
  (Math.min(im.x1, c.width) - Math.max(im.x0, 0)) * (Math.min(im.bottom, c.height) - Math.max(im.top, 0)) > 0.8 * c.width * c.height;

/**
 * Whether a page needs OCR: (almost) no text layer, but something drawn that may be text, either an image
 * (a scan, or a picture of a table placed on an empty page: 9% of the page in single_table.pdf) or many
 * vector paths (text converted to outlines); or a scanned page whose OCR text layer is mostly debris.
 */
export function needsOcr(c: PageContent): boolean {
  if (textChars(c) < 16) return c.imageCover > 0.02 || c.paths > 200;
  // A scan carrying a poor OCR text layer (typewriter pages read as "A l e t t e r") is read again.
  return c.images.some((im) => isPageImage(im, c)) && debrisShare(c) > 0.12;
}
