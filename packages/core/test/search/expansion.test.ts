import { describe, expect, it } from 'vitest';
import { DEFAULT_RM3, heaviest, queryTerms, relevanceModel, rm3Weights, weightedQueryText } from '../../src/search/expansion.ts';

describe('query terms', () => {
  it('lowercases, folds accents, splits on punctuation and drops stop words, numbers and single letters', () => {
    expect(queryTerms('The Café-au-lait spots (NF1) are 2 x common in it!')).toEqual(['cafe', 'au', 'lait', 'spots', 'nf1', 'common']);
  });

  it('splits plain ASCII text on everything but a-z and 0-9, as the Unicode split does', () => {
    expect(queryTerms('IL-6 and TNF_alpha: 2x of 42 cells/mm3')).toEqual(['il', 'tnf', 'alpha', '2x', 'cells', 'mm3']);
    expect(queryTerms('IL-6 ½ ３４ İl')).toEqual(['il', 'il']); // non-ASCII: folded, and fraction and full-width digits are numbers
  });

  it('gives nothing for a stop-word-only query', () => {
    expect(queryTerms('is it the one that was?')).toEqual(['one']);
    expect(queryTerms('to be or not to be')).toEqual([]);
  });
});

describe('RM3 term selection', () => {
  const feedback = [
    { text: 'insulin resistance in obese mice insulin', score: 9 },
    { text: 'insulin signalling and glucose uptake', score: 8 },
    { text: 'unrelated gardening notes about tomatoes', score: 1 },
  ];

  it('weights feedback terms by their passage share and the passage score', () => {
    const model = relevanceModel(feedback);
    const total = [...model.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 10);
    expect(model.get('insulin')).toBeGreaterThan(model.get('glucose') ?? 0);
    expect(model.get('glucose')).toBeGreaterThan(model.get('tomatoes') ?? 0);
  });

  it('keeps originalWeight on the query terms and spreads the rest over the best feedback terms', () => {
    const w = rm3Weights('diabetes insulin', feedback, { ...DEFAULT_RM3, feedbackTerms: 3, originalWeight: 0.6 });
    const total = [...w.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 10);
    expect(w.get('diabetes')).toBeCloseTo(0.3, 10);
    expect(w.get('insulin')).toBeGreaterThan(0.3); // a query term the feedback also votes for
    expect(w.size).toBe(4); // diabetes + 3 feedback terms, insulin among them
    expect(w.has('tomatoes')).toBe(false);
  });

  it('keeps the query unchanged without feedback and returns nothing for a query without terms', () => {
    expect([...rm3Weights('diabetes insulin', [])]).toEqual([
      ['diabetes', 0.5],
      ['insulin', 0.5],
    ]);
    expect(rm3Weights('the of and', feedback).size).toBe(0);
  });

  it("picks the heaviest terms in a full sort's order, ties by term", () => {
    const weights = new Map([
      ['delta', 0.1],
      ['alpha', 0.3],
      ['echo', 0.2],
      ['bravo', 0.2],
      ['charlie', 0.2],
    ]);
    expect(heaviest(weights, 3)).toEqual([
      ['alpha', 0.3],
      ['bravo', 0.2],
      ['charlie', 0.2],
    ]);
    expect(heaviest(weights, 9).map(([t]) => t)).toEqual(['alpha', 'bravo', 'charlie', 'echo', 'delta']);
    expect(heaviest(weights, 0)).toEqual([]);
  });

  it('writes the heaviest term `resolution` times', () => {
    const text = weightedQueryText(
      new Map([
        ['a1', 0.5],
        ['b2', 0.25],
      ]),
      { resolution: 4 },
    );
    expect(text).toBe('a1 a1 a1 a1 b2 b2');
  });

  it('writes weights as repetitions, the heaviest term 20 times and every term at least once', () => {
    const text = weightedQueryText(
      new Map([
        ['a1', 0.5],
        ['b2', 0.25],
        ['c3', 0.001],
      ]),
    );
    const counts = new Map<string, number>();
    for (const t of text.split(' ')) counts.set(t, (counts.get(t) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ a1: 20, b2: 10, c3: 1 });
    expect(weightedQueryText(new Map())).toBe('');
  });
});
