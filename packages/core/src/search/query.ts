import type { CollectionStore } from '../ports/collection-store.ts';
import type { SectionStore } from '../ports/section-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { type Access, markdownKey, requireCollection } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { notFound } from '../domain/errors.ts';
import { answersSearch, type Collection, type Metadata } from '../domain/types.ts';
import type { ChunkHitRow } from '../ports/chunk-index.ts';
import { type PageSpan, pageOffsetsOf, pageSpan } from '../documents/pages.ts';
import { chunkLocation, sectionLocations } from '../documents/regions.ts';
import { parseInput, type QueryInput, querySchema, type ScanInput, scanSchema } from '../schemas.ts';
import { isUuid } from '../util/ids.ts';
import { DEFAULT_RM3, type Rm3Options, rm3Weights, weightedQueryText } from './expansion.ts';
import { indexFilter } from './filters.ts';
import { reciprocalRankFusion } from './rrf.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/**
 * Which retrieval lists found a hit, and its rank in each (1 = first): `lexical` (BM25) and `vector` (embeddings);
 * a list that did not find it is absent. A collection without embeddings (`none`) has only the lexical list.
 */
export type FoundBy = z.output<typeof responses.foundBy>;

/** One query result with provenance (spec: Retrieval), and where the passage is in its document (issue 39). */
export type QueryHit = z.output<typeof responses.queryHit>;

import type { QueryExpansion } from '../domain/types.ts';
import type { SearchService } from '../api/search.ts';
export { QUERY_EXPANSIONS, type QueryExpansion } from '../domain/types.ts';

/** Tunables of hybrid retrieval. */
export interface RetrievalSettings {
  /** Candidates taken from each list before fusion. */
  candidates: number;
  /** RRF constant. */
  rrfK: number;
  /** Weights of the lexical and vector lists in the fusion. */
  lexicalWeight: number;
  vectorWeight: number;
  /**
   * Lexical query expansion: `rm3` runs a first BM25 search, expands the query with the best terms of its
   * top passages (pseudo-relevance feedback, see expansion.ts) and searches again; `none` searches once.
   */
  queryExpansion?: QueryExpansion;
  /**
   * Internal, for benchmarks: the number of results every query returns, whatever its `limit` (which the
   * public API caps at 50; recall@100 needs more). Unset: the query's `limit`.
   */
  resultLimit?: number;
  /** Internal, for benchmarks: RM3 parameters other than DEFAULT_RM3. */
  rm3?: Partial<Rm3Options>;
}

/**
 * The default retrieval. RM3 is on by default: the benchmarks favour it (BEIR SciFact nDCG@10 0.696 without,
 * 0.703 with it, and more on other sets) for a second BM25 search per query; `queryExpansion: 'none'` (server
 * or collection) turns it off.
 */
export const DEFAULT_RETRIEVAL: RetrievalSettings = { candidates: 50, rrfK: 60, lexicalWeight: 1, vectorWeight: 1, queryExpansion: 'rm3' };

type IndexOptions = { limit: number; filter: ReturnType<typeof indexFilter> };

/** A candidate of the query: its index row, its score so far, and the lists that found it. */
type Candidate = { row: ChunkHitRow; score: number; foundBy: FoundBy };

/**
 * The BM25 list: one search, or with `rm3` a feedback search and a second search with the expanded query. The feedback
 * search reads only the passages' text when the index offers it (two columns instead of a hit's eleven); a query
 * without expandable terms (numbers, single letters) is searched as is.
 */
async function lexicalHits(ctx: ContextPart<'index'>, c: Collection, q: string, opts: IndexOptions, s: RetrievalSettings) {
  if ((s.queryExpansion ?? 'none') === 'none') return ctx.index.searchText(c.id, q, opts);
  const rm3 = { ...DEFAULT_RM3, ...s.rm3 };
  const feedbackOpts = { ...opts, limit: rm3.feedbackDocs };
  const feedback = ctx.index.searchPassageTexts
    ? await ctx.index.searchPassageTexts(c.id, q, feedbackOpts)
    : (await ctx.index.searchText(c.id, q, feedbackOpts)).map((h) => ({
        row: { id: h.row.id, text: `${h.row.sectionTitle}\n${h.row.content}` },
        score: h.score,
      }));
  const expanded = weightedQueryText(
    rm3Weights(
      q,
      feedback.map((h) => ({ text: h.row.text, score: h.score })),
      rm3,
    ),
    rm3,
  );
  return ctx.index.searchText(c.id, expanded || q, opts);
}

/** Hybrid candidates fused by RRF, best first. */
async function fusedCandidates(
  ctx: ContextPart<'embedders' | 'index'>,
  c: Collection,
  q: string,
  filter: ReturnType<typeof indexFilter>,
  s: RetrievalSettings,
) {
  const opts = { limit: s.candidates, filter };
  const embedder = c.embeddingModel === 'none' ? null : await ctx.embedders.get(c.embeddingModel);
  const [text, vector] = await Promise.all([
    lexicalHits(ctx, c, q, opts, s),
    embedder ? embedder.embedQuery(q).then((v) => ctx.index.searchVector(c.id, v, opts)) : Promise.resolve([]),
  ]);
  const rows = new Map<string, ChunkHitRow>([...text, ...vector].map((h) => [h.row.id, h.row]));
  const lexicalRank = new Map(text.map((h, i) => [h.row.id, i + 1]));
  if (vector.length === 0) return text.map((h, i): Candidate => ({ row: h.row, score: h.score, foundBy: { lexical: i + 1 } }));
  const vectorRank = new Map(vector.map((h, i) => [h.row.id, i + 1]));
  const foundBy = (id: string): FoundBy => {
    const [lexical, vectorAt] = [lexicalRank.get(id), vectorRank.get(id)];
    return { ...(lexical !== undefined ? { lexical } : {}), ...(vectorAt !== undefined ? { vector: vectorAt } : {}) };
  };
  const fused = reciprocalRankFusion(
    [
      { ids: text.map((h) => h.row.id), weight: s.lexicalWeight },
      { ids: vector.map((h) => h.row.id), weight: s.vectorWeight },
    ],
    s.rrfK,
  );
  return fused.map((f): Candidate => ({ row: rows.get(f.id)!, score: f.score, foundBy: foundBy(f.id) }));
}

/** Re-score the top candidates when the collection asks for it and a reranker is configured. */
async function rerank(ctx: ContextPart<'reranker'>, c: Collection, q: string, hits: Candidate[]) {
  if (!c.enableReranking || !ctx.reranker || hits.length === 0) return { hits, reranker: 'none' };
  const scores = await ctx.reranker.rerank(
    q,
    hits.map((h) => ({ id: h.row.id, text: h.row.content })),
  );
  const out = hits.map((h, i) => ({ ...h, score: scores[i] ?? 0 })).sort((a, b) => b.score - a.score);
  return { hits: out, reranker: ctx.reranker.name };
}

/** Hits fetched beyond `limit` to replace those whose document is being re-processed (no provenance). */
const SPARE_HITS = 5;

/**
 * How many candidates each list contributes. Fusion and reranking reorder candidates, so they get a deep
 * pool; a lexical-only query without a reranker returns the BM25 order as is, so SPARE_HITS extra rows are
 * enough, and fetching fewer rows is most of its latency (measured at 100k chunks: LanceDB FTS p50 3.7 ms
 * for 10 rows, 7.0 ms for 50).
 */
function candidateDepth(ctx: ContextPart<'reranker'>, c: Collection, limit: number, s: RetrievalSettings): number {
  const reorders = c.embeddingModel !== 'none' || (c.enableReranking && ctx.reranker !== null);
  return reorders ? Math.max(s.candidates, limit * 2) : limit + SPARE_HITS;
}

/**
 * Attach section and document provenance to chunk rows. Rows carry their section's title and level, so only
 * the documents are read (their file name, and their status: only ready documents answer); rows of an index
 * written before rows carried the level also get their sections looked up.
 */
async function withProvenance(store: SectionStore & DocumentStore, hits: Candidate[]): Promise<QueryHit[]> {
  const lacking = hits.filter((h) => h.row.sectionLevel === null);
  const [sections, docs] = await Promise.all([
    lacking.length ? store.getSections([...new Set(lacking.map((h) => h.row.sectionId))]) : [],
    store.getDocuments([...new Set(hits.map((h) => h.row.documentId))]),
  ]);
  const levelOf = new Map(sections.map((s) => [s.id, s.level]));
  const docById = new Map(docs.map((d) => [d.id, d]));
  return hits.flatMap(({ row, score, foundBy }) => {
    const level = row.sectionLevel ?? levelOf.get(row.sectionId);
    const d = docById.get(row.documentId);
    if (level === undefined || !d || !answersSearch(d)) return []; // deleted or being re-processed since indexing
    return [
      {
        score,
        foundBy,
        chunk: { id: row.id, content: row.content, position: row.position, tokenCount: row.tokenCount },
        section: { id: row.sectionId, title: row.sectionTitle, level },
        document: { id: d.id, filename: d.filename },
        ...chunkLocation(row),
      },
    ];
  });
}

/**
 * The best `limit` hits that still have their section and a ready document, looked up a window at a time:
 * fusion and reranking work on a deep pool (50), but only the top of it is returned, so provenance for the
 * whole pool was wasted work (two metadata queries over 50 ids per search).
 */
async function topWithProvenance(ctx: ContextPart<never, SectionStore & DocumentStore>, hits: Candidate[], limit: number): Promise<QueryHit[]> {
  const out: QueryHit[] = [];
  for (let from = 0; from < hits.length && out.length < limit; ) {
    const window = hits.slice(from, from + limit - out.length + SPARE_HITS);
    out.push(...(await withProvenance(ctx.store, window)));
    from += window.length;
  }
  return out.slice(0, limit);
}

/**
 * The query path of `POST /v1/collections/:id/query` over a collection already read and checked, with parsed input
 * (evaluation runs call it with a collection and settings patched for a what-if run).
 */
export async function queryCollection(
  ctx: ContextPart<'embedders' | 'index' | 'reranker', SectionStore & DocumentStore>,
  c: Collection,
  input: ReturnType<typeof querySchema.parse>,
  settings: RetrievalSettings,
): Promise<{ results: QueryHit[]; reranker: string }> {
  const filter = indexFilter({ tags: input.tags, anyTags: input.anyTags, metadata: input.metadata as Metadata | undefined, documentIds: input.documentIds });
  const limit = settings.resultLimit ?? input.limit;
  const queryExpansion = c.queryExpansion ?? settings.queryExpansion;
  const candidates = await fusedCandidates(ctx, c, input.q, filter, { ...settings, queryExpansion, candidates: candidateDepth(ctx, c, limit, settings) });
  const { hits, reranker } = await rerank(ctx, c, input.q, candidates);
  return { results: await topWithProvenance(ctx, hits, limit), reranker };
}

/** Hybrid search, section scan and section reads. */
export function searchService(
  ctx: ContextPart<'blobs' | 'embedders' | 'index' | 'reranker', CollectionStore & SectionStore & DocumentStore>,
  settings: RetrievalSettings = DEFAULT_RETRIEVAL,
): SearchService {
  return {
    /** Hybrid query; `reranker` names the reranker that ran (`none` when none did). */
    async query(access: Access, collectionId: string, raw: QueryInput): Promise<{ results: QueryHit[]; reranker: string }> {
      const c = await requireCollection(ctx.store, access, collectionId, 'read');
      return queryCollection(ctx, c, parseInput(querySchema, raw), settings);
    },
    async scan(access: Access, collectionId: string, raw: ScanInput) {
      const c = await requireCollection(ctx.store, access, collectionId, 'read');
      const input = parseInput(scanSchema, raw);
      const filter = indexFilter({
        tags: input.tags,
        anyTags: input.anyTags,
        metadata: input.metadata as Metadata | undefined,
        documentIds: input.documentIds,
      });
      const hits = await ctx.index.searchSections(c.id, input.query, { limit: input.top_k, filter });
      const [documents, sections] = await Promise.all([
        ctx.store.getDocuments([...new Set(hits.map((h) => h.row.documentId))]),
        hits.length ? ctx.store.getSections(hits.map((h) => h.row.id)) : [],
      ]);
      const docs = new Map(documents.map((d) => [d.id, d]));
      const locations = await sectionLocations(ctx, c, sections);
      const results = hits.flatMap(({ row, score }) => {
        const d = docs.get(row.documentId);
        if (!d || d.status === 'error' || d.deletedAt) return [];
        const section = { id: row.id, title: row.title, level: row.level, summary: row.summary || null };
        return [{ score, section, document: { id: d.id, filename: d.filename }, ...locations.get(row.id) }];
      });
      return { results };
    },
    async section(access: Access, sectionId: string) {
      const { section, doc, collection } = await sectionWithAccess(ctx, access, sectionId);
      // A Markdown upload's Markdown is its original file (see convert-step): the document says where it is.
      const markdown = new TextDecoder().decode(await ctx.blobs.get(doc.markdownStorageKey ?? markdownKey(collection, section.documentId)));
      const [offsets, locations] = await Promise.all([pageOffsetsOf(ctx, collection, section.documentId), sectionLocations(ctx, collection, [section])]);
      const { collectionId: _c, ...view } = section;
      const pages: Partial<PageSpan> = offsets ? pageSpan(offsets, section.markdownOffsetStart, section.markdownOffsetEnd) : {};
      const content = markdown.slice(section.markdownOffsetStart, section.markdownOffsetEnd);
      // Its span is markdownOffsetStart/End already: the section gains its pages, regions and cells only.
      const { span: _span, ...location } = locations.get(section.id) ?? {};
      return { ...view, ...pages, ...location, content };
    },
    async sectionChunks(access: Access, sectionId: string) {
      const { section, collection } = await sectionWithAccess(ctx, access, sectionId);
      const rows = await ctx.index.chunksOfSection(collection.id, section.id);
      return rows.map((r) => ({ id: r.id, content: r.content, position: r.position, tokenCount: r.tokenCount, ...chunkLocation(r) }));
    },
  };
}

async function sectionWithAccess(ctx: ContextPart<never, SectionStore & DocumentStore & CollectionStore>, access: Access, sectionId: string) {
  const [section] = isUuid(sectionId) ? await ctx.store.getSections([sectionId]) : [];
  const doc = section ? await ctx.store.getDocument(section.documentId) : null;
  // A soft-deleted document's sections (issue 43) answer as its document does: not found.
  if (!section || !doc || doc.deletedAt) throw notFound('Section');
  try {
    return { section, doc, collection: await requireCollection(ctx.store, access, section.collectionId, 'read') };
  } catch (err) {
    if ((err as { code?: string }).code === 'not_found') throw notFound('Section');
    throw err;
  }
}

export type { SearchService };
