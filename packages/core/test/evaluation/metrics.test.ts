import { describe, expect, it } from 'vitest';
import { faithfulness, keyTerms, sentencesOf } from '../../src/evaluation/faithfulness.ts';
import { ndcgAt, percentile, rankKeys, recallAt, reciprocalRankAt, scoreQuery, summarize } from '../../src/evaluation/metrics.ts';

const judged = (pairs: [string, number][]) => new Map(pairs);

describe('evaluation metrics (known values)', () => {
  it('nDCG@10 of a perfect ranking is 1 and of a miss is 0', () => {
    expect(
      ndcgAt(
        ['a', 'b'],
        judged([
          ['a', 1],
          ['b', 1],
        ]),
        10,
      ),
    ).toBe(1);
    expect(ndcgAt(['x', 'y'], judged([['a', 1]]), 10)).toBe(0);
  });

  it('nDCG@10 with the relevant document at rank 2 is 1/log2(3)', () => {
    expect(ndcgAt(['x', 'a'], judged([['a', 1]]), 10)).toBeCloseTo(1 / Math.log2(3), 12);
  });

  it('graded nDCG uses the grades as gains and the ideal order of the judgments', () => {
    // ranking b(1), a(2): DCG = 1 + 2/log2(3); ideal a(2), b(1): 2 + 1/log2(3)
    const expected = (1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3));
    expect(
      ndcgAt(
        ['b', 'a'],
        judged([
          ['a', 2],
          ['b', 1],
        ]),
        10,
      ),
    ).toBeCloseTo(expected, 12);
  });

  it('nDCG@10 ignores hits past rank 10 and judgments of grade 0', () => {
    const ranking = [...'abcdefghij'].map((c) => `x${c}`).concat('a');
    expect(
      ndcgAt(
        ranking,
        judged([
          ['a', 1],
          ['z', 0],
        ]),
        10,
      ),
    ).toBe(0);
    expect(
      ndcgAt(
        ['a'],
        judged([
          ['a', 1],
          ['z', 0],
        ]),
        10,
      ),
    ).toBe(1);
  });

  it('recall@k and the reciprocal rank', () => {
    const j = judged([
      ['a', 1],
      ['b', 1],
      ['c', 1],
      ['d', 1],
    ]);
    expect(recallAt(['a', 'x', 'b', 'c'], j, 3)).toBe(0.5);
    expect(reciprocalRankAt(['x', 'y', 'b'], j, 10)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRankAt(['x', 'y', 'b'], j, 2)).toBe(0);
    expect(recallAt(['a'], judged([]), 10)).toBe(0);
  });

  it('ranks keys by their best hit, ties in first-seen order', () => {
    expect(
      rankKeys([
        { key: 'd1', score: 0.2 },
        { key: 'd2', score: 0.5 },
        { key: 'd1', score: 0.9 },
        { key: 'd3', score: 0.5 },
      ]),
    ).toEqual(['d1', 'd2', 'd3']);
  });

  it('percentiles by nearest rank and a summary of a run', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 95)).toBe(19);
    expect(percentile([], 95)).toBe(0);
    const scores = [scoreQuery(['a'], judged([['a', 1]]), 10), scoreQuery(['x', 'b'], judged([['b', 1]]), 10)];
    const s = summarize(scores, [10, 30], 10);
    expect(s.ndcg10).toBeCloseTo((1 + 1 / Math.log2(3)) / 2, 12);
    expect(s.mrr).toBeCloseTo(0.75, 12);
    expect(s.recall).toBe(1);
    expect(s).toMatchObject({ k: 10, queries: 2, latencyP50Ms: 10, latencyP95Ms: 30 });
  });
});

describe('faithfulness heuristic', () => {
  it('splits sentences and finds key terms without function words or markers', () => {
    expect(sentencesOf('One claim here. Another one! [S1]\nA third?')).toEqual(['One claim here.', 'Another one! [S1]', 'A third?']);
    expect([...keyTerms('The vitamin levels of the patients [S2]')]).toEqual(['vitamin', 'levels', 'patients']);
  });

  it('counts cited sentences and citations whose passage shares the key terms', () => {
    const answer = [
      'Vitamin D deficiency raises fracture risk in elderly patients [S1].',
      'Coffee consumption lowers mortality in adults [S2].',
      'Regular exercise improves sleep quality considerably.',
      'Ok.',
    ].join(' ');
    const passages = [
      { marker: 'S1', content: 'Elderly patients with vitamin D deficiency showed a higher fracture risk.' },
      { marker: 'S2', content: 'Tea drinking was studied in a cohort of children.' },
    ];
    expect(faithfulness(answer, passages)).toEqual({
      sentences: 3,
      citedSentences: 2,
      citedSentenceShare: 2 / 3,
      citations: 2,
      supportedCitations: 1,
      supportedCitationShare: 0.5,
    });
  });

  it('reports null shares when there is nothing to measure, and ignores markers without a passage', () => {
    expect(faithfulness('', [])).toMatchObject({ citedSentenceShare: null, supportedCitationShare: null });
    expect(faithfulness('Glucose metabolism changes during fasting [S9].', [])).toMatchObject({
      sentences: 1,
      citedSentences: 0,
      citations: 0,
      supportedCitationShare: null,
    });
  });
});
