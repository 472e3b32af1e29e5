import { createHash } from 'node:crypto';
import type { ConverterRegistry } from './converters/registry.ts';
import type { CellRegion, TextRegion } from './converters/types.ts';
import { chunkMarkdown, type DraftChunkRow } from './chunk-document.ts';
import { sectionMarkdown, type DraftSection } from './sectioner.ts';
import { stableId } from '../util/ids.ts';

/** An image of a prepared document: its stable id, where the Markdown refers to it, and its bytes. */
export interface PreparedImage {
  id: string;
  placeholder: string;
  mimeType: string;
  bytes: Uint8Array;
  /** Position of the section that refers to it, or null when none does. */
  sectionPosition: number | null;
}

/** A document converted, with image references made stable and its section manifest built. */
export interface PreparedDocument {
  /** The Markdown as UTF-8, encoded where it was made (a worker thread), so the event loop never encodes a large one. */
  markdown: Uint8Array;
  /** The Markdown is byte for byte the uploaded file (a Markdown or text file converted as it was): stored once. */
  markdownIsOriginal: boolean;
  detectedType: string;
  sections: DraftSection[];
  images: PreparedImage[];
  pageOffsets?: number[];
  /** Where the Markdown's text sits on the original's pages (PDFs), offsets as in `markdown` decoded. */
  regions?: TextRegion[];
  /** Where the Markdown's table rows sit in the original's sheets (spreadsheets), offsets as in `markdown` decoded. */
  cells?: CellRegion[];
  /** The chunks, when the input asked for them and the Markdown was small enough (see PrepareInput.chunking). */
  chunks?: DraftChunkRow[];
  /** `sha256:<hex>` of the input bytes when the input asked for it (PrepareInput.hash), hashed in the worker thread. */
  contentHash?: string;
}

/** Chunk settings for chunking a small document where it was converted, saving the chunking runner a round trip. */
export interface PrepareChunking {
  chunkSize: number;
  chunkOverlap: number;
  /** Largest Markdown (UTF-8 bytes) chunked here; a larger one is chunked by the embed step's runner. */
  maxBytes: number;
}

/** What preparation needs: the stored bytes, the upload's name, and the document id (for stable image URLs). */
export interface PrepareInput {
  bytes: Uint8Array;
  filename: string;
  documentId: string;
  chunking?: PrepareChunking;
  /** Hash the bytes too: a file not hashed as it was uploaded (a large library upload, a presigned S3 PUT). */
  hash?: boolean;
}

/** Section id derived from the document and position, so a re-run rewrites the same rows. */
export const sectionIdOf = (documentId: string, position: number): string => stableId(documentId, 'section', position);

/** Images larger than this are dropped from a document (the text still converts). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Stable id of a document's image. */
export const imageIdOf = (documentId: string, placeholder: string): string => stableId(documentId, 'image', placeholder);

/** The stable, auth-gated URL path of a stored image. */
export const imageUrl = (documentId: string, imageId: string): string => `/v1/documents/${documentId}/images/${imageId}`;

/**
 * Convert, point image placeholders at stable URLs, and cut sections: all the CPU-heavy work of ingestion,
 * pure and synchronous in effect, so it can run in a worker thread.
 */
export async function prepareDocument(registry: ConverterRegistry, input: PrepareInput): Promise<PreparedDocument> {
  const result = await registry.convert(input.bytes, input.filename);
  const kept = result.images.filter((img) => img.bytes.length > 0 && img.bytes.length <= MAX_IMAGE_BYTES);
  const urls = new Map(kept.map((img) => [`(${img.placeholder})`, `(${imageUrl(input.documentId, imageIdOf(input.documentId, img.placeholder))})`]));
  const tracked = { pageOffsets: result.pageOffsets, regions: result.regions, cells: result.cells };
  const { markdown, pageOffsets, regions, cells } = replaceTracked(result.markdown, urls, tracked);
  const sections = sectionMarkdown(markdown, input.filename);
  const images = kept.map((img) => {
    const id = imageIdOf(input.documentId, img.placeholder);
    const at = markdown.indexOf(imageUrl(input.documentId, id));
    const section = at < 0 ? undefined : sections.find((s) => at >= s.start && at < s.end);
    return { id, placeholder: img.placeholder, mimeType: img.mimeType, bytes: img.bytes, sectionPosition: section?.position ?? null };
  });
  const bytes = new TextEncoder().encode(markdown);
  const chunks = chunkSmall(input, markdown, bytes.length, sections);
  const markdownIsOriginal = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(input.bytes);
  const contentHash = input.hash ? `sha256:${createHash('sha256').update(input.bytes).digest('hex')}` : undefined;
  return {
    markdown: bytes,
    markdownIsOriginal,
    detectedType: result.detectedType,
    sections,
    images,
    pageOffsets,
    regions: regions?.length ? regions : undefined,
    cells: cells?.length ? cells : undefined,
    chunks,
    contentHash,
  };
}

/** The chunks of a document whose Markdown is at most `chunking.maxBytes` (UTF-8), else undefined. */
function chunkSmall(input: PrepareInput, markdown: string, byteLength: number, sections: DraftSection[]): DraftChunkRow[] | undefined {
  const chunking = input.chunking;
  if (!chunking || byteLength > chunking.maxBytes) return undefined;
  const spans = sections.map((s) => ({ id: sectionIdOf(input.documentId, s.position), position: s.position, start: s.start, end: s.end }));
  return chunkMarkdown(markdown, { documentId: input.documentId, sections: spans, chunkSize: chunking.chunkSize, chunkOverlap: chunking.chunkOverlap });
}

/** A function moving an offset of the original text by the length changes of the replacements made before it. */
function offsetMover(shifts: { at: number; delta: number }[]): (offset: number) => number {
  const sums: number[] = [];
  for (const s of shifts) sums.push((sums[sums.length - 1] ?? 0) + s.delta);
  return (offset) => {
    let lo = 0;
    let hi = shifts.length; // first shift at or after `offset`
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((shifts[mid] as { at: number }).at < offset) lo = mid + 1;
      else hi = mid;
    }
    return offset + (lo > 0 ? (sums[lo - 1] as number) : 0);
  };
}

/** Offsets into a converted Markdown that must follow its rewrites: page starts, text regions and cell rows. */
export interface TrackedOffsets {
  pageOffsets?: number[];
  regions?: TextRegion[];
  cells?: CellRegion[];
}

/** Replace every `(placeholder)` in one pass, moving page offsets and regions by the length change of the replacements before them. */
export function replaceTracked(markdown: string, replacements: Map<string, string>, tracked: TrackedOffsets = {}): { markdown: string } & TrackedOffsets {
  if (replacements.size === 0) return { markdown, ...tracked };
  const shifts: { at: number; delta: number }[] = [];
  const out = markdown.replace(/\([a-z][a-z0-9+.-]*:\/\/img-\d+\)/g, (match, at: number) => {
    const url = replacements.get(match);
    if (!url) return match;
    shifts.push({ at, delta: url.length - match.length });
    return url;
  });
  const move = offsetMover(shifts);
  const regions = tracked.regions?.map((r) => ({ ...r, start: move(r.start), end: move(r.end) }));
  const cells = tracked.cells?.map((r) => ({ ...r, start: move(r.start), end: move(r.end) }));
  return { markdown: out, pageOffsets: tracked.pageOffsets?.map(move), regions, cells };
}
