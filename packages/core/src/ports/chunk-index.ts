import type { RetrievalFilter } from '../domain/types.ts';

/** A chunk row as written to the index. Document attributes are denormalised so filters run inside the index. */
export interface ChunkRow {
  id: string;
  documentId: string;
  sectionId: string;
  position: number;
  content: string;
  tokenCount: number;
  /** Section title; indexed with the content for full-text search. */
  sectionTitle: string;
  /** The section's heading level (no section lookup in a search); null from older indexes (then looked up). */
  sectionLevel: number | null;
  /** Null in lexical-only collections. */
  vector: Float32Array | null;
  tags: string[];
  /** `key=<canonical JSON of value>` for each top-level metadata pair (see search/filters.ts). */
  metadataPairs: string[];
  /** False hides the row from search (non-canonical duplicates). */
  canonical: boolean;
  /** The chunk's characters in its document's Markdown, [charStart, charEnd) in UTF-16 offsets; null from older indexes. */
  charStart?: number | null;
  charEnd?: number | null;
  /** Where the chunk sits on the original's pages, as documents/regions.ts encodes it; null for formats without pages. */
  positions?: string | null;
}

/**
 * A chunk as a search returns it: without the vector and the document attributes (tags, metadata pairs, canonical),
 * filters applied inside the index (reading those back was a fifth of a full-text search's time at 20k rows).
 */
export type ChunkHitRow = Omit<ChunkRow, 'vector' | 'tags' | 'metadataPairs' | 'canonical'>;

/** A chunk as a feedback search returns it: its id and the text the full-text index holds (section title, newline, content). */
export interface PassageText {
  id: string;
  text: string;
}

/** A section row in the section-text index used by scan. */
export interface SectionRow {
  id: string;
  documentId: string;
  title: string;
  summary: string;
  level: number;
  tags: string[];
  metadataPairs: string[];
  canonical: boolean;
}

/** Attributes of a document copied onto every one of its rows. */
export interface DocumentAttributes {
  tags?: string[];
  metadataPairs?: string[];
  canonical?: boolean;
}

/** One search hit; higher score is better. */
export interface IndexHit<Row> {
  row: Row;
  score: number;
}

export interface IndexSearchOptions {
  limit: number;
  filter?: RetrievalFilter & { metadataPairs?: string[] };
}

export interface UpsertOptions {
  /**
   * The caller guarantees that no row with these ids exists yet (a document's first write), so the adapter
   * may append without matching ids, which stays cheap as the table grows. Rows are still replaced when not set.
   */
  fresh?: boolean;
}

/** Capabilities an adapter declares so core can choose fallbacks. */
export interface ChunkIndexCapabilities {
  fullText: boolean;
  vector: boolean;
  filters: boolean;
}

/** Error codes raised by chunk index adapters. */
export type ChunkIndexErrorCode = 'dimension_mismatch' | 'missing_index';

/** Per-collection storage of chunk text, vectors and section text; rows are replaced by id, never by scan-and-delete. */
export interface ChunkIndex {
  /** What this adapter supports. */
  readonly capabilities: ChunkIndexCapabilities;
  /** Create the collection's tables; `dimension` null means lexical-only. Idempotent. */
  createCollection(collectionId: string, dimension: number | null): Promise<void>;
  /** Drop every table and row of the collection. */
  dropCollection(collectionId: string): Promise<void>;
  /** Insert or replace chunk rows by id; rows not named are untouched. Throws dimension_mismatch. */
  upsertChunks(collectionId: string, rows: ChunkRow[], opts?: UpsertOptions): Promise<void>;
  /** Insert or replace section rows by id. */
  upsertSections(collectionId: string, rows: SectionRow[], opts?: UpsertOptions): Promise<void>;
  /** Make every row written so far visible to search (index build/optimize as the engine needs). */
  refresh(collectionId: string): Promise<void>;
  /** Remove all chunk and section rows of a document. */
  deleteDocument(collectionId: string, documentId: string): Promise<void>;
  /** Remove a document's chunk rows not in keepIds (after a re-chunk) and, given keepSectionIds, its other section rows. */
  deleteDocumentChunksExcept(collectionId: string, documentId: string, keepIds: string[], keepSectionIds?: string[]): Promise<void>;
  /** Copy changed document attributes onto all of its chunk and section rows (of each listed document: one write). */
  updateDocumentAttributes(collectionId: string, documentId: string | readonly string[], attrs: DocumentAttributes): Promise<void>;
  /** BM25 full-text search over chunk content and section title. Throws missing_index for an unknown collection. */
  searchText(collectionId: string, query: string, opts: IndexSearchOptions): Promise<IndexHit<ChunkHitRow>[]>;
  /**
   * Optional: the same search as searchText (same hits, scores and order), returning only each hit's indexed text,
   * which is all query expansion reads of its feedback passages; without it, expansion reads searchText's rows.
   * Reading two columns instead of a hit's eleven is a third of a small search's CPU time on LanceDB (measured on
   * SciFact, 300 queries: 3.8 ms against 5.9 ms per search).
   */
  searchPassageTexts?(collectionId: string, query: string, opts: IndexSearchOptions): Promise<IndexHit<PassageText>[]>;
  /** Nearest-neighbour search; score is a similarity (higher is better). Throws dimension_mismatch. */
  searchVector(collectionId: string, vector: Float32Array, opts: IndexSearchOptions): Promise<IndexHit<ChunkHitRow>[]>;
  /** Full-text search over section titles and summaries. */
  searchSections(collectionId: string, query: string, opts: IndexSearchOptions): Promise<IndexHit<SectionRow>[]>;
  /** All chunks of a section ordered by position (vectors omitted). */
  chunksOfSection(collectionId: string, sectionId: string): Promise<ChunkRow[]>;
  /** Chunks by id (vectors omitted). */
  getChunks(collectionId: string, ids: string[]): Promise<ChunkRow[]>;
  /** Number of chunk rows of a document (or of the collection when documentId is omitted). */
  countChunks(collectionId: string, documentId?: string): Promise<number>;
  /** Bytes on disk used by the collection's tables. */
  sizeBytes(collectionId: string): Promise<number>;
  /** Optional: resolves once index maintenance the writes so far call for has run (Dossier's idle() waits for it). */
  settle?(): Promise<void>;
  /** Release handles, finishing (or leaving to the next open) the maintenance still due. */
  close(): Promise<void>;
}

/**
 * Version of the ChunkIndex contract that `chunkIndexSuite` checks (major: every adapter must change; minor: a change
 * adapters already meet, such as more checks). 1.1: search hits are ChunkHitRow (an adapter may still return more).
 * 1.2: rows carry their character span and page positions (charStart, charEnd, positions), read back as written.
 * 1.3: optional searchPassageTexts (feedback passages for query expansion), checked against searchText when present.
 */
export const CHUNK_INDEX_SPEC_VERSION = '1.3.0';
