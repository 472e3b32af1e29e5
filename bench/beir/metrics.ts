/**
 * Retrieval metrics as BEIR computes them with pytrec_eval (trec_eval semantics): graded gains taken as is
 * from the qrels, a log2(rank + 1) discount, the ideal DCG from the qrels' own relevance values, and a
 * document counting as relevant when its grade is above 0. A query with no hits scores 0.
 */

/** Relevance grades of one query: BEIR document id → grade. */
export type Judgments = ReadonlyMap<string, number>;

/** Discounted cumulative gain of the first k ranked ids. */
function dcg(gains: readonly number[], k: number): number {
  let sum = 0;
  for (const [i, gain] of gains.slice(0, k).entries()) sum += gain / Math.log2(i + 2);
  return sum;
}

/** nDCG@k: DCG of the ranking over DCG of the qrels sorted by grade (trec_eval `ndcg_cut`). */
export function ndcgAt(ranking: readonly string[], judged: Judgments, k: number): number {
  const ideal = dcg([...judged.values()].filter((g) => g > 0).sort((a, b) => b - a), k);
  if (ideal === 0) return 0;
  return dcg(ranking.map((id) => Math.max(0, judged.get(id) ?? 0)), k) / ideal;
}

/** recall@k: share of the relevant documents found in the first k. */
export function recallAt(ranking: readonly string[], judged: Judgments, k: number): number {
  const relevant = [...judged.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  return ranking.slice(0, k).filter((id) => (judged.get(id) ?? 0) > 0).length / relevant;
}

/** MRR@k for one query: 1 / rank of the first relevant document within the first k, else 0. */
export function reciprocalRankAt(ranking: readonly string[], judged: Judgments, k: number): number {
  const i = ranking.slice(0, k).findIndex((id) => (judged.get(id) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** One scored passage hit mapped to its BEIR document id. */
export interface PassageHit {
  docId: string;
  score: number;
}

/**
 * Documents ranked by their best passage: each document takes the maximum score of its hits, ties keep
 * the order in which documents first appeared. Hits whose document id equals `queryId` are dropped
 * (BEIR's `ignore_identical_ids`, which matters for corpora where queries are also documents).
 */
export function rankDocuments(hits: readonly PassageHit[], queryId?: string): string[] {
  const best = new Map<string, { score: number; first: number }>();
  for (const [i, h] of hits.entries()) {
    if (h.docId === queryId) continue;
    const seen = best.get(h.docId);
    if (!seen) best.set(h.docId, { score: h.score, first: i });
    else if (h.score > seen.score) seen.score = h.score;
  }
  return [...best.entries()].sort(([, a], [, b]) => b.score - a.score || a.first - b.first).map(([id]) => id);
}

/** Mean of the per-query figures of each metric. */
export interface MetricSummary {
  ndcg10: number;
  recall100: number;
  mrr10: number;
  queries: number;
}

/** The three headline metrics averaged over every judged query; queries missing from `rankings` score 0. */
export function evaluate(rankings: ReadonlyMap<string, readonly string[]>, qrels: ReadonlyMap<string, Judgments>): MetricSummary {
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  for (const [qid, judged] of qrels) {
    const ranking = rankings.get(qid) ?? [];
    ndcg += ndcgAt(ranking, judged, 10);
    recall += recallAt(ranking, judged, 100);
    mrr += reciprocalRankAt(ranking, judged, 10);
  }
  const n = qrels.size || 1;
  return { ndcg10: ndcg / n, recall100: recall / n, mrr10: mrr / n, queries: qrels.size };
}

/** The p-th percentile (0..100) by the nearest-rank method; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}
