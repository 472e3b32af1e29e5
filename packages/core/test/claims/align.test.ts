import { describe, expect, it } from 'vitest';
import { alignQuote } from '../../src/claims/align.ts';

const SECTION = 'The plant in Lyon opened in 2019.  It employs 1,200 people and exports to Spain, Italy and Portugal.';

describe('alignQuote', () => {
  it('returns the exact span when the quote occurs word for word, whatever its case, spacing or punctuation', () => {
    expect(alignQuote(SECTION, 'the plant in lyon opened in 2019')).toBe('The plant in Lyon opened in 2019');
    expect(alignQuote(SECTION, 'It employs 1,200 people')).toBe('It employs 1,200 people');
    expect(alignQuote(SECTION, 'the plant in lyon opened in 2019.')).toBe('The plant in Lyon opened in 2019.');
  });

  it('aligns a near-verbatim quote to the section passage it stands for', () => {
    expect(alignQuote(SECTION, 'It employs 1,200 people and exports to Spain and Portugal')).toBe(
      'It employs 1,200 people and exports to Spain, Italy and Portugal',
    );
  });

  it('returns null for a quote the section does not contain, and for an empty quote', () => {
    expect(alignQuote(SECTION, 'The factory in Berlin closed after the 2008 crisis')).toBeNull();
    expect(alignQuote(SECTION, '')).toBeNull();
    expect(alignQuote(SECTION, null)).toBeNull();
  });

  it('stays bounded on a long section and a long quote', () => {
    const long = 'word '.repeat(50_000);
    const started = Date.now();
    expect(alignQuote(long, 'something that is not there '.repeat(20))).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
