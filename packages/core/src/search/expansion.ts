/**
 * Pseudo-relevance feedback, RM3 (Abdul-Jaleel et al., 2004; Anserini's defaults): the top feedback
 * passages of a first BM25 search vote for terms in proportion to their normalised score, and the query
 * becomes a mix of its own terms and the best voted terms.
 *
 * The expanded query is a plain bag of words in which a term's weight is its number of repetitions: the
 * engine's BM25 sums over query tokens, so a term written n times counts n times (measured on LanceDB
 * 0.37: `protein protein cell` scores 6.48 where `protein cell` scores 3.95). No engine operator is needed,
 * so every ChunkIndex that does BM25 takes it.
 */

/** Words the index drops as stop words (LanceDB/tantivy's English list), so they never vote. */
const STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/** RM3 parameters. */
export interface Rm3Options {
  /** Feedback passages taken from the top of the first search. */
  feedbackDocs: number;
  /** Expansion terms added to the query. */
  feedbackTerms: number;
  /** Share of the query weight kept by the original terms (0..1). */
  originalWeight: number;
  /**
   * Repetitions of the heaviest term in the expanded query text; lighter terms get proportionally fewer, at least one.
   * The second search's cost grows with the repetitions (LanceDB iterates a posting list per query token): on SciFact
   * 20 writes ~194 tokens, 10 ~100 and saves ~10% of an RM3 query's CPU time, but costs nDCG@10 0.001 on both the
   * 300 test and the 809 train queries (0.7028 → 0.7020, 0.7059 → 0.7043); 12 and 15 are within that noise too.
   */
  resolution: number;
}

/**
 * Measured on SciFact (bare LanceDB table, pipeline row text, 300 queries): nDCG@10 0.6903 without feedback;
 * 10/10/0.5 0.6827, 10/20/0.5 0.6870, 10/10/0.7 0.6939, 10/30/0.6 0.6962, 10/50/0.6 0.6972, 10/30/0.7 0.6973,
 * 20/30/0.6 0.6956, 5/30/0.6 0.6953. Ten passages and many lightly weighted terms are the stable region.
 */
export const DEFAULT_RM3: Rm3Options = { feedbackDocs: 10, feedbackTerms: 30, originalWeight: 0.6, resolution: 20 };

/** Plain ASCII text (every code point below 128). */
const ASCII = /^\p{ASCII}*$/u;
const ASCII_SEPARATORS = /[^a-z0-9]+/;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
/**
 * Compiled once: a Unicode-class literal inside the filter was compiled afresh for each token, 13 ms over the first
 * query's feedback passages (18–100 ms of a cold process's first query, CPU-profiled, issue 41).
 */
const NUMBER = /^\p{N}+$/u;

/** Lowercased, accent-folded word tokens without stop words, pure numbers or one-letter tokens. */
export function queryTerms(text: string): string[] {
  const lower = text.toLowerCase();
  // Most text is plain ASCII: nothing to fold, and its letters and digits are a-z and 0-9, so a simpler split gives
  // the same terms (tokenizing the ten feedback passages was half of the expansion's CPU time).
  const ascii = ASCII.test(lower);
  const folded = ascii ? lower : lower.normalize('NFKD').replace(/\p{M}/gu, '');
  return folded.split(ascii ? ASCII_SEPARATORS : SEPARATORS).filter((t) => t.length > 1 && t.length <= 40 && !STOP_WORDS.has(t) && !isNumber(t));
}

/** Digits only; a token starting with a letter a-z is not (the regex runs only for the rest). */
const isNumber = (token: string): boolean => {
  const first = token.charCodeAt(0);
  return (first < 97 || first > 122) && NUMBER.test(token);
};

/** Term weights of the relevance model P(w|R): Σ over feedback passages of P(w|D)·P(D|q), summing to 1. */
export function relevanceModel(feedback: { text: string; score: number }[]): Map<string, number> {
  const weights = new Map<string, number>();
  if (feedback.length === 0) return weights;
  const max = Math.max(...feedback.map((d) => d.score));
  // BM25 scores are log-odds-like, so exp(score) is the document's query likelihood up to a constant.
  const likelihoods = feedback.map((d) => Math.exp(d.score - max));
  const total = likelihoods.reduce((a, b) => a + b, 0);
  for (const [i, d] of feedback.entries()) {
    const terms = queryTerms(d.text);
    const pDoc = (likelihoods[i] ?? 0) / total;
    for (const t of terms) weights.set(t, (weights.get(t) ?? 0) + pDoc / terms.length);
  }
  return weights;
}

const byWeightThenTerm = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1);

/** The `count` heaviest terms, heaviest first, ties by term: a full sort's order, without sorting the whole vocabulary. */
export function heaviest(weights: Map<string, number>, count: number): [string, number][] {
  if (count <= 0) return [];
  const entries = [...weights];
  if (entries.length <= count) return entries.sort(byWeightThenTerm);
  const threshold = Float64Array.from(entries, ([, w]) => w).sort()[entries.length - count]!;
  return entries
    .filter(([, w]) => w >= threshold)
    .sort(byWeightThenTerm)
    .slice(0, count);
}

/** The RM3 query weights: originalWeight spread over the query's terms, the rest over the best feedback terms. */
export function rm3Weights(query: string, feedback: { text: string; score: number }[], o: Rm3Options = DEFAULT_RM3): Map<string, number> {
  const original = queryTerms(query);
  const out = new Map<string, number>();
  if (original.length === 0) return out;
  const alpha = feedback.length === 0 ? 1 : o.originalWeight;
  for (const t of original) out.set(t, (out.get(t) ?? 0) + alpha / original.length);
  const top = heaviest(relevanceModel(feedback), o.feedbackTerms);
  const mass = top.reduce((a, [, w]) => a + w, 0);
  for (const [t, w] of top) out.set(t, (out.get(t) ?? 0) + ((1 - alpha) * w) / mass);
  return out;
}

/** Weights as a bag of words: each term repeated in proportion to its weight (the heaviest `resolution` times). */
export function weightedQueryText(weights: Map<string, number>, o: Pick<Rm3Options, 'resolution'> = DEFAULT_RM3): string {
  const max = Math.max(0, ...weights.values());
  if (max === 0) return '';
  return [...weights].flatMap(([t, w]) => Array<string>(Math.max(1, Math.round((o.resolution * w) / max))).fill(t)).join(' ');
}
