import { stableId } from '../util/ids.ts';
import { chunkText } from './chunker.ts';

/** A section to chunk: its id and position, and its range in the document's Markdown (UTF-16 offsets). */
export interface SectionSpan {
  id: string;
  position: number;
  start: number;
  end: number;
}

/** What chunking needs. The Markdown travels as UTF-8 bytes so a worker thread can take it without a copy. */
export interface ChunkInput {
  documentId: string;
  markdown: Uint8Array;
  sections: SectionSpan[];
  chunkSize: number;
  chunkOverlap: number;
}

/** A chunk with its stable id, before the document's attributes and vector are added. */
export interface DraftChunkRow {
  id: string;
  sectionId: string;
  position: number;
  content: string;
  tokenCount: number;
  /** Most of its non-blank lines are Markdown table rows. */
  table: boolean;
  /** The chunk's own characters in the document's Markdown: [charStart, charEnd), UTF-16 offsets (a repeated table header excluded). */
  charStart: number;
  charEnd: number;
}

/** Chunk id derived from the document, section and position, so a re-run rewrites the same rows. */
export const chunkIdOf = (documentId: string, sectionPosition: number, position: number): string => stableId(documentId, 'chunk', sectionPosition, position);

/** A chunk is a table chunk when most of its non-blank lines are Markdown table rows. */
export function isTableChunk(content: string): boolean {
  const lines = content.split('\n').filter((l) => l.trim());
  const rows = lines.filter((l) => /^\s*\|.*\|\s*$/.test(l));
  return rows.length >= 2 && rows.length * 2 >= lines.length;
}

/**
 * Tokenize and window every section, give each chunk its stable id and mark table chunks: the CPU-heavy part of
 * indexing, pure and synchronous, so it runs in a worker thread (a ChunkingRunner) and never on the event loop.
 */
export function chunkDocument(input: ChunkInput): DraftChunkRow[] {
  return chunkMarkdown(new TextDecoder().decode(input.markdown), input);
}

/** chunkDocument over Markdown already decoded (the conversion worker holds it as a string). */
export function chunkMarkdown(markdown: string, input: Omit<ChunkInput, 'markdown'>): DraftChunkRow[] {
  return input.sections.flatMap((s) =>
    chunkText(markdown.slice(s.start, s.end), input.chunkSize, input.chunkOverlap).map((ch) => ({
      id: chunkIdOf(input.documentId, s.position, ch.position),
      sectionId: s.id,
      position: ch.position,
      content: ch.content,
      tokenCount: ch.tokenCount,
      table: isTableChunk(ch.content),
      charStart: s.start + ch.start,
      charEnd: s.start + ch.end,
    })),
  );
}
