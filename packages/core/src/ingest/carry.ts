import type { SectionRecord, TableChunkRecord } from '../domain/types.ts';
import type { CellRegion, TextRegion } from './converters/types.ts';
import type { ChunkRow } from '../ports/chunk-index.ts';
import type { DraftChunkRow } from './chunk-document.ts';

/**
 * What one pipeline step leaves in memory for the next step of the same job, so the embed step that follows a
 * conversion neither reads the Markdown back from the blob store nor sends it to the chunking runner. A job that
 * starts at a later step (a re-run after a crash) has an empty carry and reads everything from storage.
 */
export interface StepCarry {
  markdown?: Uint8Array;
  sections?: SectionRecord[];
  /** The document's text regions (PDFs), as the conversion stored them; undefined when the embed step must read them. */
  regions?: TextRegion[] | null;
  /** The document's page (or slide) start offsets, as the conversion stored them; undefined when they must be read. */
  pageOffsets?: number[] | null;
  /** The document's cell map (spreadsheets), as the conversion stored it; undefined when it must be read. */
  cells?: CellRegion[] | null;
  /**
   * Present when the conversion worker chunked the document (its Markdown was at most SMALL_MARKDOWN_BYTES); the
   * sections were then saved with these chunks' counts, so the embed step need not set them.
   */
  chunks?: DraftChunkRow[];
  /** The chunk rows' index write, started by the conversion step (see startLexicalIndexing). */
  indexing?: Promise<IndexedChunks>;
}

/** One document's chunk rows as written to the index, with its table chunks and the sections they belong to. */
export interface IndexedChunks {
  rows: ChunkRow[];
  tables: TableChunkRecord[];
  sections: SectionRecord[];
}

/**
 * Markdown up to this size is chunked by the conversion worker in the same task (about 2 ms of tokenizing at most),
 * larger Markdown by the chunking runner, so a long tokenization never holds a conversion thread that small
 * uploads wait for.
 */
export const SMALL_MARKDOWN_BYTES = 64 * 1024;
