/** Limits and settings of the PDF and image converters. */
export interface PdfOptions {
  /** A PDF with more pages is refused (default 2000). */
  maxPages?: number;
  /** Pages OCR'd per document; scanned pages past it get a visible note instead of text (default 50). */
  maxOcrPages?: number;
  /** Resolution at which scanned pages are rendered for OCR (default 300, tesseract's recommendation). */
  ocrDpi?: number;
  /** Embedded images extracted per PDF (default 50; 0 turns extraction off). */
  maxImages?: number;
  /** Images smaller than this many pixels on either side are decoration and skipped (default 48). */
  minImageSide?: number;
  /** Images with more pixels than this are skipped (default 16 million). */
  maxImagePixels?: number;
  /** Uploaded images with more pixels than this are refused (default 60 million). */
  maxOcrImagePixels?: number;
}

export type ResolvedPdfOptions = Readonly<Required<PdfOptions>>;

/** Options with defaults filled in. */
export function resolvePdfOptions(opts: PdfOptions = {}): ResolvedPdfOptions {
  return Object.freeze({
    maxPages: opts.maxPages ?? 2000,
    maxOcrPages: opts.maxOcrPages ?? 50,
    ocrDpi: opts.ocrDpi ?? 300,
    maxImages: opts.maxImages ?? 50,
    minImageSide: opts.minImageSide ?? 48,
    maxImagePixels: opts.maxImagePixels ?? 16_000_000,
    maxOcrImagePixels: opts.maxOcrImagePixels ?? 60_000_000,
  });
}
