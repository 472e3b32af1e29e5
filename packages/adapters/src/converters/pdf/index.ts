import type { Converter } from '@dossier/core/conversion';
import { convertImage } from './image.ts';
import { type PdfOptions, resolvePdfOptions } from './options.ts';
import { convertPdf } from './pdf.ts';

export { closeOcr } from './ocr.ts';
export type { PdfOptions } from './options.ts';

/** The image types OCR'd into Markdown. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/tiff', 'image/gif'] as const;

/**
 * Converters for PDF (text layer, with OCR for scanned pages) and for images (OCR). Each keeps no state
 * between calls except the per-thread caches of pdf.js, the canvas and the tesseract worker.
 */
export function pdfConverters(options: PdfOptions = {}): Converter[] {
  const opts = resolvePdfOptions(options);
  return [
    { name: 'pdf', types: ['application/pdf'], convert: (input) => convertPdf(input, opts) },
    { name: 'image-ocr', types: IMAGE_TYPES, convert: (input) => convertImage(input, opts) },
  ];
}
