import { type ConvertInput, type ConvertResult, DossierError } from '@dossier/core/conversion';
import { toBlocks } from './blocks.ts';
import { layoutPage } from './layout.ts';
import { renderPages } from './markdown.ts';
import { ocrRuns } from './ocr.ts';
import type { ResolvedPdfOptions } from './options.ts';
import { pageProtos } from './paragraphs.ts';
import { docStats } from './stats.ts';
import { tiffToPng, tooLarge } from './tiff.ts';

/** Resolution assumed for an uploaded image (phone scans and scanners are 150–600 DPI; 300 is typical). */
const ASSUMED_DPI = 300;

const u32be = (b: Uint8Array, i: number): number => (((b[i] ?? 0) << 24) >>> 0) + ((b[i + 1] ?? 0) << 16) + ((b[i + 2] ?? 0) << 8) + (b[i + 3] ?? 0);
const u16be = (b: Uint8Array, i: number): number => ((b[i] ?? 0) << 8) + (b[i + 1] ?? 0);
const u16le = (b: Uint8Array, i: number): number => (b[i] ?? 0) + ((b[i + 1] ?? 0) << 8);

/** Width and height of a JPEG from its start-of-frame marker. */
function jpegSize(b: Uint8Array): [number, number] | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1] as number;
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return [u16be(b, i + 7), u16be(b, i + 5)];
    i += 2 + u16be(b, i + 2);
  }
  return undefined;
}

/** Pixel size from the file header, read before anything is decoded (a decompression bomb stops here). */
export function headerSize(bytes: Uint8Array, type: string): [number, number] | undefined {
  if (type === 'image/png')
    return bytes.length >= 24 && Buffer.from(bytes.subarray(12, 16)).toString('latin1') === 'IHDR' ? [u32be(bytes, 16), u32be(bytes, 20)] : undefined;
  if (type === 'image/gif') return bytes.length >= 10 ? [u16le(bytes, 6), u16le(bytes, 8)] : undefined;
  if (type === 'image/jpeg') return jpegSize(bytes);
  return undefined;
}

/** The image in a form tesseract.js reads (PNG, JPEG and GIF as they are; TIFF converted to PNG). */
async function ocrInput(input: ConvertInput, opts: ResolvedPdfOptions): Promise<Uint8Array> {
  if (input.detectedType === 'image/tiff') return (await tiffToPng(input.bytes, opts.maxOcrImagePixels)).png;
  const size = headerSize(input.bytes, input.detectedType);
  if (!size || size[0] <= 0 || size[1] <= 0) {
    throw new DossierError('conversion_failed', 'The image is corrupt or truncated: its header could not be read');
  }
  if (size[0] * size[1] > opts.maxOcrImagePixels) throw tooLarge(size[0], size[1], opts.maxOcrImagePixels);
  return input.bytes;
}

const altOf = (filename: string): string => filename.replace(/\.[^.]+$/, '').replace(/[[\]]/g, '') || 'Image 1';

/**
 * An uploaded image (PNG, JPEG, TIFF, GIF): the image itself, kept as `dossier://img-1` and shown first,
 * then its text by OCR, laid out like a scanned PDF page (headings, paragraphs, tables).
 */
export async function convertImage(input: ConvertInput, opts: ResolvedPdfOptions): Promise<ConvertResult> {
  const scale = ASSUMED_DPI / 72;
  const runs = await ocrRuns(await ocrInput(input, opts), scale);
  const page = layoutPage(runs, [], { width: 0, height: 0 }, true);
  const stats = docStats([page]);
  const [blocks = []] = toBlocks([pageProtos(page, stats)], stats);
  blocks.unshift({ kind: 'image', placeholder: 'dossier://img-1', alt: altOf(input.filename) });
  const { markdown } = renderPages([blocks]);
  return { markdown, images: [{ placeholder: 'dossier://img-1', mimeType: input.detectedType, bytes: input.bytes }] };
}
