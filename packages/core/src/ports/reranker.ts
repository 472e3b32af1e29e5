/** A candidate passed to a reranker. */
export interface RerankCandidate {
  id: string;
  text: string;
}

/** Re-scores candidates against a query. */
export interface Reranker {
  /** Name reported in the response header (e.g. `none`, `cross-encoder:<model>`). */
  readonly name: string;
  /** Scores for each candidate in input order; higher is better. */
  rerank(query: string, candidates: RerankCandidate[]): Promise<number[]>;
}
