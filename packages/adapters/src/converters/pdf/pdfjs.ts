import { createRequire } from 'node:module';
import path from 'node:path';
import { DossierError } from '@dossier/core/conversion';

/** The text item of pdf.js `getTextContent` (marked-content items have no `str`). */
export interface PdfTextItem {
  str: string;
  /** Text matrix [a, b, c, d, e, f] in PDF user space. */
  transform: number[];
  width: number;
  fontName: string;
}

export interface PdfOperatorList {
  fnArray: number[];
  argsArray: unknown[][];
}

/** Decoded image data as pdf.js hands it to its renderer in Node. */
export interface PdfImageData {
  width: number;
  height: number;
  /** 1 = 1 bit per pixel grey, 2 = RGB, 3 = RGBA. */
  kind: number;
  data?: Uint8Array | Uint8ClampedArray;
}

export interface PdfViewport {
  width: number;
  height: number;
  transform: number[];
}

export interface PdfCanvas {
  toBuffer(mime: 'image/png'): Buffer;
}

/** pdf.js object stores: `get(id)` throws until the object is resolved; `get(id, callback)` calls back once it is. */
export interface PdfObjects {
  get(id: string): unknown;
  get(id: string, callback: (data: unknown) => void): null;
  has(id: string): boolean;
}

export interface PdfPage {
  getViewport(opts: { scale: number }): PdfViewport;
  getTextContent(): Promise<{ items: (PdfTextItem | { type: string })[]; styles: Record<string, { fontFamily: string }> }>;
  getOperatorList(): Promise<PdfOperatorList>;
  render(opts: { canvas: PdfCanvas; viewport: PdfViewport; canvasContext?: unknown }): { promise: Promise<void> };
  commonObjs: PdfObjects;
  objs: PdfObjects;
  cleanup(): boolean;
}

export interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
  canvasFactory: { create(w: number, h: number): { canvas: PdfCanvas; context: unknown }; destroy(c: { canvas: PdfCanvas; context: unknown }): void };
  destroy(): Promise<void>;
}

/** The part of pdf.js Dossier uses. */
export interface Pdfjs {
  getDocument(params: Record<string, unknown>): { promise: Promise<PdfDocument>; destroy(): Promise<void> };
  OPS: Record<string, number>;
  Util: { transform(m1: number[], m2: number[]): number[] };
  VerbosityLevel: { ERRORS: number };
}

let loaded: Promise<Pdfjs> | undefined;

/**
 * pdf.js's legacy build (the one meant for Node), loaded once per thread. The specifier is widened to
 * `string` so TypeScript types the module by the `Pdfjs` interface above rather than pdf.js's own
 * declarations, which assume the DOM.
 */
export function loadPdfjs(): Promise<Pdfjs> {
  loaded ??= import('pdfjs-dist/legacy/build/pdf.mjs' as string).then((m) => m as Pdfjs);
  return loaded;
}

/** Folder of the pdfjs-dist package, for its bundled standard fonts, CMaps and wasm decoders. */
function pdfjsFolder(): string {
  return path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
}

/**
 * Open options that keep pdf.js off the network and away from eval: fonts are never turned into font faces
 * or looked up on the system, and the standard fonts, CMaps and wasm decoders come from the package folder.
 */
function safeParams(pdfjs: Pdfjs, data: Uint8Array): Record<string, unknown> {
  const dir = pdfjsFolder();
  return {
    data,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    disableAutoFetch: true,
    disableStream: true,
    stopAtErrors: false,
    maxImageSize: 64 * 1024 * 1024,
    standardFontDataUrl: `${dir}/standard_fonts/`,
    cMapUrl: `${dir}/cmaps/`,
    cMapPacked: true,
    wasmUrl: `${dir}/wasm/`,
    iccUrl: `${dir}/iccs/`,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  };
}

/** pdf.js's reason for refusing a file, in words for the uploader. */
export function openFailure(err: unknown): DossierError {
  const name = (err as { name?: string })?.name;
  if (name === 'PasswordException') {
    return new DossierError('conversion_failed', 'The PDF is encrypted (password-protected); remove the password and upload it again', { cause: err });
  }
  if (name === 'InvalidPDFException') {
    return new DossierError('conversion_failed', 'The file is not a valid PDF: it is corrupt or truncated', { cause: err });
  }
  return new DossierError('conversion_failed', 'The PDF could not be read: it is corrupt or truncated', { cause: err });
}

/** Open a PDF from bytes (copied: pdf.js takes ownership of its buffer). */
export async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument(safeParams(pdfjs, new Uint8Array(bytes)));
  try {
    return await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw openFailure(err);
  }
}
