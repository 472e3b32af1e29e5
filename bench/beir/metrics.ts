/**
 * Retrieval metrics as BEIR computes them with pytrec_eval (trec_eval semantics): graded gains taken as is
 * from the qrels, a log2(rank + 1) discount, the ideal DCG from the qrels' own relevance values, and a
 * document counting as relevant when its grade is above 0. A query with no hits scores 0.
 */

// The metrics themselves are the library's (evaluation runs of issue 38 score with the same functions).
import { type Judgments, ndcgAt, recallAt, reciprocalRankAt } from '@dossier/core/internal';

export { type Judgments, ndcgAt, recallAt, reciprocalRankAt };

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
