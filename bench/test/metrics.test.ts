import { describe, expect, it } from 'vitest';
import { evaluate, ndcgAt, percentile, rankDocuments, recallAt, reciprocalRankAt } from '../beir/metrics.ts';

const judged = (pairs: Record<string, number>) => new Map(Object.entries(pairs));

describe('ndcgAt', () => {
  it('is 1 when the relevant documents lead the ranking', () => {
    expect(ndcgAt(['a', 'b', 'x'], judged({ a: 1, b: 1 }), 10)).toBeCloseTo(1, 12);
  });

  it('discounts by log2(rank + 1) against the ideal DCG of the qrels', () => {
    // DCG = 1/log2(3); ideal = 1 + 1/log2(3) because d is relevant but never retrieved.
    expect(ndcgAt(['a', 'b', 'c'], judged({ b: 1, d: 1 }), 10)).toBeCloseTo(0.386852807234542, 12);
  });

  it('uses graded relevance as linear gains', () => {
    // DCG = 1 + 2/log2(3); ideal = 2 + 1/log2(3).
    expect(ndcgAt(['a', 'b'], judged({ a: 1, b: 2 }), 10)).toBeCloseTo(0.859718699852197, 12);
  });

  it('ignores documents past the cut-off', () => {
    const ranking = [...Array.from({ length: 10 }, (_, i) => `x${i}`), 'a'];
    expect(ndcgAt(ranking, judged({ a: 1 }), 10)).toBe(0);
  });

  it('gives zero-graded judgments no gain and no place in the ideal ranking', () => {
    expect(ndcgAt(['z', 'a'], judged({ a: 1, z: 0 }), 10)).toBeCloseTo(0.630929753571457, 12);
  });
});

describe('recallAt', () => {
  it('is the share of relevant documents within the first k', () => {
    const ranking = Array.from({ length: 150 }, (_, i) => `d${i}`);
    expect(recallAt(ranking, judged({ d49: 1, d119: 1 }), 100)).toBe(0.5);
    expect(recallAt(ranking, judged({ d49: 1, d119: 1 }), 150)).toBe(1);
  });

  it('does not count zero-graded judgments as relevant', () => {
    expect(recallAt(['a'], judged({ a: 1, b: 0 }), 100)).toBe(1);
  });
});

describe('reciprocalRankAt', () => {
  it('is one over the rank of the first relevant document', () => {
    expect(reciprocalRankAt(['x', 'y', 'a', 'b'], judged({ a: 1, b: 1 }), 10)).toBeCloseTo(1 / 3, 12);
  });

  it('is zero when the first relevant document is past the cut-off', () => {
    const ranking = [...Array.from({ length: 10 }, (_, i) => `x${i}`), 'a'];
    expect(reciprocalRankAt(ranking, judged({ a: 1 }), 10)).toBe(0);
  });
});

describe('rankDocuments', () => {
  it('scores each document by its best passage, ties in first-seen order', () => {
    const hits = [
      { docId: 'a', score: 1 },
      { docId: 'b', score: 3 },
      { docId: 'a', score: 5 },
      { docId: 'c', score: 3 },
    ];
    expect(rankDocuments(hits)).toEqual(['a', 'b', 'c']);
  });

  it('drops hits on the document whose id is the query id', () => {
    const hits = [
      { docId: 'q1', score: 9 },
      { docId: 'a', score: 2 },
    ];
    expect(rankDocuments(hits, 'q1')).toEqual(['a']);
  });
});

describe('evaluate', () => {
  it('averages over every judged query, counting a query without hits as zero', () => {
    const qrels = new Map([
      ['q1', judged({ a: 1 })],
      ['q2', judged({ b: 1 })],
    ]);
    const m = evaluate(new Map([['q1', ['a']]]), qrels);
    expect(m).toEqual({ ndcg10: 0.5, recall100: 0.5, mrr10: 0.5, queries: 2 });
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const samples = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
    expect(percentile(samples, 50)).toBe(5);
    expect(percentile(samples, 95)).toBe(10);
    expect(percentile([42], 99)).toBe(42);
  });
});
