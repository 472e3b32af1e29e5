import { stemmer } from 'stemmer';
import { queryTerms } from '../search/expansion.ts';

/** A sparse, L2-normalised vector: term id → weight. */
export type SparseVector = Map<number, number>;

/** Stemmed content words of a claim: accent-folded, no stop words, no pure numbers (a changed figure is what a
 * contradiction is made of, so numbers must not pull two claims about the same thing apart). */
export function claimTerms(text: string): string[] {
  return queryTerms(text).map((term) => stemmer(term));
}

/**
 * TF-IDF vectors of short texts (sublinear term frequency, smoothed idf, L2 norm): the similarity of a
 * collection's claims when it has no embedding model, and the terms of the claim map's fallback projection.
 */
export function tfidfVectors(texts: string[]): { vectors: SparseVector[]; vocabulary: Map<string, number>; documentFrequency: number[] } {
  const vocabulary = new Map<string, number>();
  const documentFrequency: number[] = [];
  const counts = texts.map((text) => {
    const termCounts = new Map<number, number>();
    for (const term of claimTerms(text)) {
      let id = vocabulary.get(term);
      if (id === undefined) {
        id = vocabulary.size;
        vocabulary.set(term, id);
        documentFrequency.push(0);
      }
      termCounts.set(id, (termCounts.get(id) ?? 0) + 1);
    }
    for (const id of termCounts.keys()) documentFrequency[id] = (documentFrequency[id] ?? 0) + 1;
    return termCounts;
  });
  const total = texts.length;
  const vectors = counts.map((termCounts) => {
    const vector: SparseVector = new Map();
    let norm = 0;
    for (const [id, count] of termCounts) {
      const weight = (1 + Math.log(count)) * (1 + Math.log((1 + total) / (1 + (documentFrequency[id] ?? 0))));
      vector.set(id, weight);
      norm += weight * weight;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [id, weight] of vector) vector.set(id, weight / norm);
    return vector;
  });
  return { vectors, vocabulary, documentFrequency };
}

/** An L2-normalised copy of a dense vector (zero stays zero). */
export function normalise(vector: ArrayLike<number>): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] ?? 0) ** 2;
  const out = new Float32Array(vector.length);
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] ?? 0) * scale;
  return out;
}

/** Dot product of two dense vectors of equal length (cosine when both are normalised). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}
