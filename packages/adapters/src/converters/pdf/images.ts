import { createHash } from 'node:crypto';
import type { ExtractedImage } from '@dossier/core/conversion';
import { encodePng } from './canvas.ts';
import type { ResolvedPdfOptions } from './options.ts';
import type { PaintedImage } from './page-read.ts';
import type { PdfImageData, PdfPage } from './pdfjs.ts';
import type { Figure } from './types.ts';

/** pdf.js ImageKind values. */
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

/** Decoded pdf.js image data as RGBA, or undefined for layouts we do not handle. */
function toRgba(img: PdfImageData): Uint8ClampedArray | undefined {
  const { width, height, kind, data } = img;
  if (!data) return undefined;
  const out = new Uint8ClampedArray(width * height * 4);
  if (kind === RGBA_32BPP && data.length >= out.length) return new Uint8ClampedArray(data.subarray(0, out.length));
  if (kind === RGB_24BPP && data.length >= width * height * 3) {
    for (let p = 0, s = 0; p < out.length; p += 4, s += 3) {
      out[p] = data[s] as number;
      out[p + 1] = data[s + 1] as number;
      out[p + 2] = data[s + 2] as number;
      out[p + 3] = 255;
    }
    return out;
  }
  if (kind === GRAYSCALE_1BPP) {
    const stride = Math.ceil(width / 8);
    if (data.length < stride * height) return undefined;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const v = ((data[y * stride + (x >> 3)] as number) >> (7 - (x & 7))) & 1 ? 255 : 0;
        out.set([v, v, v, 255], (y * width + x) * 4);
      }
    }
    return out;
  }
  return undefined;
}

const asImage = (data: unknown): PdfImageData | undefined => (data && typeof (data as PdfImageData).width === 'number' ? (data as PdfImageData) : undefined);

/** How long a page waits in all for pdf.js to finish decoding the images its operator list names. */
export const IMAGE_RESOLVE_MS = 5000;

/**
 * The decoded image behind an object id (shared ones live in commonObjs). pdf.js decodes images
 * asynchronously, so an id from the operator list may not be resolved yet (seen on the SPARSE invoice:
 * both images were dropped when read at once); wait for it until `deadline` (epoch ms, shared by a page's
 * images so that many broken ones cannot add up). Undefined when pdf.js cannot decode it (unsupported
 * filter, broken stream) or misses the deadline: the text still converts.
 */
export function imageData(page: PdfPage, objId: string, deadline: number): Promise<PdfImageData | undefined> {
  const store = objId.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
    try {
      store.get(objId, (data) => {
        clearTimeout(timer);
        resolve(asImage(data));
      });
    } catch {
      clearTimeout(timer);
      resolve(undefined);
    }
  });
}

/**
 * Collects a document's embedded images as PNG, numbered in reading order across pages. Identical images
 * (a logo on every page) share one placeholder. Small decorations, masks, inline images and images over the
 * pixel cap are skipped, as is anything past `maxImages`.
 */
export class ImageCollector {
  readonly images: ExtractedImage[] = [];
  private readonly byHash = new Map<string, string>();

  constructor(private readonly opts: ResolvedPdfOptions) {}

  /** Figures for a page's painted images, extracting the ones worth keeping. */
  async collect(page: PdfPage, painted: PaintedImage[]): Promise<Figure[]> {
    const figures: Figure[] = [];
    const deadline = Date.now() + IMAGE_RESOLVE_MS;
    for (const p of painted) {
      const placeholder = p.objId ? await this.extract(page, p.objId, deadline) : undefined;
      if (placeholder)
        figures.push({
          kind: 'figure',
          placeholder,
          alt: `Image ${placeholder.replace(/^dossier:\/\/img-/, '')}`,
          x0: p.x0,
          x1: p.x1,
          top: p.top,
          bottom: p.bottom,
        });
    }
    return figures;
  }

  private async extract(page: PdfPage, objId: string, deadline: number): Promise<string | undefined> {
    const img = await imageData(page, objId, deadline);
    if (!img || this.images.length >= this.opts.maxImages) return undefined;
    const { width, height } = img;
    if (Math.min(width, height) < this.opts.minImageSide || width * height > this.opts.maxImagePixels) return undefined;
    const rgba = toRgba(img);
    if (!rgba) return undefined;
    const hash = createHash('sha1').update(rgba).digest('hex');
    const seen = this.byHash.get(hash);
    if (seen) return seen;
    const placeholder = `dossier://img-${this.images.length + 1}`;
    this.images.push({ placeholder, mimeType: 'image/png', bytes: await encodePng(rgba, width, height) });
    this.byHash.set(hash, placeholder);
    return placeholder;
  }
}
