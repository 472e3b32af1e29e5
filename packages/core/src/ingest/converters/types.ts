/** Input to a converter: the stored bytes and what the uploader said about them. */
export interface ConvertInput {
  bytes: Uint8Array;
  filename: string;
  /** Content type detected from the bytes (see sniff.ts), never the client's claim. */
  detectedType: string;
}

/** An image found in a document; the Markdown refers to it by placeholder. */
export interface ExtractedImage {
  placeholder: string;
  mimeType: string;
  bytes: Uint8Array;
}

/**
 * Where a stretch of the Markdown came from on the original: characters [start, end) (UTF-16 offsets into the
 * Markdown) were read from `box` on page `page` (1-based). The box is [x0, y0, x1, y1] as fractions of the page's
 * width and height, origin at the top left (as a page image is drawn).
 */
export interface TextRegion {
  start: number;
  end: number;
  page: number;
  box: [number, number, number, number];
}

/**
 * Where a line of a spreadsheet's Markdown came from: characters [start, end) hold row `row` (1-based, as the sheet
 * numbers it) of sheet `sheet`, which spans columns `firstColumn` to `lastColumn` (1-based: A is 1).
 */
export interface CellRegion {
  start: number;
  end: number;
  sheet: string;
  row: number;
  firstColumn: number;
  lastColumn: number;
}

/** What a converter produces. */
export interface ConvertResult {
  markdown: string;
  images: ExtractedImage[];
  /** Page boundaries as character offsets into the Markdown, for paged formats. */
  pageOffsets?: number[];
  /** Where the Markdown's text sits on its pages, in Markdown order (paged formats with geometry: PDFs, scans). */
  regions?: TextRegion[];
  /** Where the Markdown's table rows sit in the original's sheets, in Markdown order (spreadsheets: XLSX). */
  cells?: CellRegion[];
}

/** One format's converter. Adding a format is adding one of these to the registry. */
export interface Converter {
  /** Short name, e.g. `markdown`. */
  readonly name: string;
  /** Detected content types this converter accepts. */
  readonly types: readonly string[];
  /** Convert bytes to normalised Markdown; throws DossierError('conversion_failed') on bad input. */
  convert(input: ConvertInput): Promise<ConvertResult>;
}
