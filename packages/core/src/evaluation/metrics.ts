/**
 * Retrieval metrics of an evaluation run, with trec_eval semantics (as BEIR computes them with pytrec_eval, and
 * as bench/beir does): graded gains taken as is, a log2(rank + 1) discount, the ideal DCG from the judgments' own
 * grades, and a target counting as relevant when its grade is above 0. A query with no hits scores 0.
 */

/** Relevance grades of one query: target key → grade. */
export type Judgments = ReadonlyMap<string, number>;

/** Discounted cumulative gain of the first k gains. */
function dcg(gains: readonly number[], k: number): number {
  let sum = 0;
  for (const [i, gain] of gains.slice(0, k).entries()) sum += gain / Math.log2(i + 2);
  return sum;
}

/** nDCG@k: DCG of the ranking over the DCG of the judgments sorted by grade (trec_eval `ndcg_cut`). */
export function ndcgAt(ranking: readonly string[], judged: Judgments, k: number): number {
  const ideal = dcg(
    [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a),
    k,
  );
  if (ideal === 0) return 0;
  return (
    dcg(
      ranking.map((id) => Math.max(0, judged.get(id) ?? 0)),
      k,
    ) / ideal
  );
}

/** recall@k: share of the relevant targets found in the first k. */
export function recallAt(ranking: readonly string[], judged: Judgments, k: number): number {
  const relevant = [...judged.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  return ranking.slice(0, k).filter((id) => (judged.get(id) ?? 0) > 0).length / relevant;
}

/** Reciprocal rank within the first k: 1 / rank of the first relevant target, else 0. */
export function reciprocalRankAt(ranking: readonly string[], judged: Judgments, k: number): number {
  const i = ranking.slice(0, k).findIndex((id) => (judged.get(id) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** The p-th percentile (0..100) by the nearest-rank method; 0 for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** One scored hit mapped to the key it is judged by (a document, a file name or a section). */
export interface KeyedHit {
  key: string;
  score: number;
}

/**
 * Targets ranked by their best hit: each key takes the maximum score of its hits; ties keep the order in which
 * keys first appeared (bench/beir's `rankDocuments`, so both rank documents of several chunks alike).
 */
export function rankKeys(hits: readonly KeyedHit[]): string[] {
  const best = new Map<string, { score: number; first: number }>();
  for (const [i, h] of hits.entries()) {
    const seen = best.get(h.key);
    if (!seen) best.set(h.key, { score: h.score, first: i });
    else if (h.score > seen.score) seen.score = h.score;
  }
  return [...best.entries()].sort(([, a], [, b]) => b.score - a.score || a.first - b.first).map(([key]) => key);
}

/** The figures of one query. */
export interface QueryScores {
  ndcg10: number;
  recall: number;
  reciprocalRank: number;
}

/** nDCG@10, recall@k and the reciprocal rank within k of one ranking. */
export function scoreQuery(ranking: readonly string[], judged: Judgments, k: number): QueryScores {
  return { ndcg10: ndcgAt(ranking, judged, 10), recall: recallAt(ranking, judged, k), reciprocalRank: reciprocalRankAt(ranking, judged, k) };
}

/** Averages of a run: the mean of each query's figures, and latency percentiles in milliseconds. */
export interface RunMetrics {
  ndcg10: number;
  recall: number;
  mrr: number;
  /** The cut-off of recall and MRR (the run's result limit). */
  k: number;
  queries: number;
  latencyP50Ms: number;
  latencyP95Ms: number;
}

/** Mean figures over every query (an empty run scores 0 everywhere). */
export function summarize(scores: readonly QueryScores[], latenciesMs: readonly number[], k: number): RunMetrics {
  const n = scores.length || 1;
  const mean = (pick: (s: QueryScores) => number) => scores.reduce((sum, s) => sum + pick(s), 0) / n;
  return {
    ndcg10: mean((s) => s.ndcg10),
    recall: mean((s) => s.recall),
    mrr: mean((s) => s.reciprocalRank),
    k,
    queries: scores.length,
    latencyP50Ms: percentile(latenciesMs, 50),
    latencyP95Ms: percentile(latenciesMs, 95),
  };
}
