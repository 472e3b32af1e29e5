/** One ranked list to fuse, with its weight. */
export interface RankedList {
  ids: string[];
  weight?: number;
}

/**
 * Reciprocal Rank Fusion (Cormack et al., 2009): score(d) = Σ w_i / (k + rank_i(d)), ranks from 1.
 * k = 60 is the paper's value. Returns ids with fused scores, best first; ties keep first-list order.
 */
export function reciprocalRankFusion(lists: RankedList[], k = 60): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const { ids, weight = 1 } of lists) {
    for (const [i, id] of ids.entries()) scores.set(id, (scores.get(id) ?? 0) + weight / (k + i + 1));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
