import type { SectionStore } from '../ports/section-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { ContextPart } from '../context.ts';
import type { Collection } from '../domain/types.ts';
import type { EvaluationSettings, GoldenMatch, GoldenQuery, GoldenSetRecord, QueryResult } from '../ports/evaluation-store.ts';
import { querySchema } from '../schemas.ts';
import { type QueryHit, queryCollection, type RetrievalSettings } from '../search/query.ts';
import { type RunMetrics, rankKeys, scoreQuery, summarize } from './metrics.ts';
import type { EvaluationSettingsPatch } from './schemas.ts';

/** Results per query of a run that does not say (nDCG@10 needs ten). */
export const DEFAULT_EVALUATION_LIMIT = 10;

/** The settings a run uses: its patch over the collection's settings over the server's retrieval defaults. */
export function effectiveSettings(c: Collection, server: RetrievalSettings, patch: EvaluationSettingsPatch = {}): EvaluationSettings {
  return {
    queryExpansion: patch.queryExpansion ?? c.queryExpansion ?? server.queryExpansion ?? 'none',
    enableReranking: patch.enableReranking ?? c.enableReranking,
    limit: patch.limit ?? DEFAULT_EVALUATION_LIMIT,
    lexicalWeight: patch.lexicalWeight ?? server.lexicalWeight,
    vectorWeight: patch.vectorWeight ?? server.vectorWeight,
    rrfK: patch.rrfK ?? server.rrfK,
    chunkSize: patch.chunkSize ?? c.chunkSize,
    chunkOverlap: patch.chunkOverlap ?? c.chunkOverlap,
    embeddingModel: patch.embeddingModel ?? c.embeddingModel,
    shadow: false,
  };
}

const stem = (filename: string): string => filename.replace(/\.[^./]+$/, '');

/** The key a hit is judged by: its document id, its section id, or its file name (the stem when the set names stems). */
function keyOf(hit: QueryHit, matchBy: GoldenMatch, judged: ReadonlyMap<string, number>): string {
  if (matchBy === 'document') return hit.document.id;
  if (matchBy === 'section') return hit.section.id;
  return judged.has(hit.document.filename) ? hit.document.filename : stem(hit.document.filename);
}

/** Run one query through the query path and score what came back. */
async function runQuery(
  ctx: ContextPart<'embedders' | 'index' | 'reranker', SectionStore & DocumentStore>,
  c: Collection,
  q: GoldenQuery,
  matchBy: GoldenMatch,
  retrieval: RetrievalSettings,
  limit: number,
): Promise<QueryResult> {
  const judged = new Map(q.relevant.map((r) => [r.target, r.grade]));
  const started = performance.now();
  const { results } = await queryCollection(ctx, c, querySchema.parse({ q: q.query, limit: Math.min(limit, 50) }), retrieval);
  const latencyMs = performance.now() - started;
  const ranking = rankKeys(results.map((h) => ({ key: keyOf(h, matchBy, judged), score: h.score })));
  const scores = scoreQuery(ranking, judged, limit);
  const expected = q.relevant.map((r) => ({ ...r, rank: ranking.indexOf(r.target) >= 0 ? ranking.indexOf(r.target) + 1 : null }));
  return { id: q.id, query: q.query, ...scores, latencyMs: Math.round(latencyMs * 100) / 100, expected, returned: ranking.slice(0, limit) };
}

/**
 * Run every query of a set, one after the other (so each latency is the query's own), through the same path as
 * `POST /v1/collections/:id/query`, with the run's settings applied to a copy of the collection (never saved).
 */
export async function runGoldenSet(
  ctx: ContextPart<'embedders' | 'index' | 'reranker', SectionStore & DocumentStore>,
  c: Collection,
  set: GoldenSetRecord,
  settings: EvaluationSettings,
  server: RetrievalSettings,
  onQuery?: (done: number, total: number) => Promise<void>,
): Promise<{ metrics: RunMetrics; perQuery: QueryResult[] }> {
  const patched: Collection = { ...c, queryExpansion: settings.queryExpansion, enableReranking: settings.enableReranking };
  const retrieval: RetrievalSettings = {
    ...server,
    lexicalWeight: settings.lexicalWeight,
    vectorWeight: settings.vectorWeight,
    rrfK: settings.rrfK,
    resultLimit: settings.limit,
  };
  const perQuery: QueryResult[] = [];
  for (const q of set.queries) {
    perQuery.push(await runQuery(ctx, patched, q, set.matchBy, retrieval, settings.limit));
    await onQuery?.(perQuery.length, set.queries.length);
  }
  return {
    metrics: summarize(
      perQuery,
      perQuery.map((r) => r.latencyMs),
      settings.limit,
    ),
    perQuery,
  };
}
