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

/** What a converter produces. */
export interface ConvertResult {
  markdown: string;
  images: ExtractedImage[];
  /** Page boundaries as character offsets into the Markdown, for paged formats. */
  pageOffsets?: number[];
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
