/**
 * The search group of the public API (`dossier.search`): hybrid retrieval over a collection, and section reads.
 * Public collections are searchable by anonymous callers (`access` null).
 */
import type { z } from 'zod';
import type { Access } from '../access.ts';
import type { chunk, scanResults, sectionWithContent } from '../responses.ts';
import type { QueryInput, ScanInput } from '../schemas.ts';
import type { QueryHit } from '../search/query.ts';

/** The sections a scan found, best first, each with its document and where it is in the original. */
export type ScanResults = z.output<typeof scanResults>;
/** A section with its Markdown and where it is in its original (pages, boxes, cells). */
export type SectionWithContent = z.output<typeof sectionWithContent>;
/** A chunk of a section, with where it is in its document. */
export type ChunkView = z.output<typeof chunk>;

/** `dossier.search`: hybrid (BM25 + vector) search with optional reranking, section scans and section reads. */
export interface SearchService {
  /**
   * Hybrid query of a collection: lexical and vector lists fused by reciprocal rank, then reranked when the
   * collection enables it; `reranker` names the reranker that ran (`none` when none did). Higher scores are better.
   * @throws {DossierError} `not_found` (collection), `invalid_input` (empty `q`, bad filter), `rate_limited`.
   * @example
   * const { results } = await dossier.search.query(access, collectionId, { q: 'notice period', limit: 5 });
   */
  query(access: Access, collectionId: string, raw: QueryInput): Promise<{ results: QueryHit[]; reranker: string }>;
  /**
   * Lexical search over section titles and summaries: which sections to read, cheaper than a query.
   * @throws {DossierError} `not_found` (collection), `invalid_input`.
   */
  scan(access: Access, collectionId: string, raw: ScanInput): Promise<ScanResults>;
  /**
   * One section with its Markdown and location.
   * @throws {DossierError} `not_found` (unknown section, or its collection is not readable by the caller).
   */
  section(access: Access, sectionId: string): Promise<SectionWithContent>;
  /**
   * The chunks of a section in order.
   * @throws {DossierError} `not_found`.
   */
  sectionChunks(access: Access, sectionId: string): Promise<ChunkView[]>;
}
