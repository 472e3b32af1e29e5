import { describe, expect, it } from 'vitest';
import { containment, fingerprintsOf, intersectionSize, normalisedWords, shingleSet } from '../../src/duplicates/fingerprints.ts';

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango'.split(' ');
const text = (count: number, offset = 0) => Array.from({ length: count }, (_, index) => `${WORDS[(index + offset) % WORDS.length]}${Math.floor((index + offset) / WORDS.length)}`).join(' ');

describe('near-duplicate fingerprints', () => {
  it('reads the same words from Markdown, HTML-ish and plain renderings of one text', () => {
    expect(normalisedWords('# Títle\n\n**Bold** [link](http://x.test/a) and <b>tags</b>, café!')).toEqual(['title', 'bold', 'link', 'and', 'tags', 'cafe']);
    expect(shingleSet('The quick brown fox jumps over the lazy dog.')).toEqual(shingleSet('the QUICK brown   fox\n\njumps over the *lazy* dog'));
  });

  it('measures containment both ways exactly as a brute-force set intersection does', () => {
    const long = shingleSet(text(400));
    const excerpt = shingleSet(text(100, 150));
    const brute = [...excerpt].filter((hash) => new Set(long).has(hash)).length;
    expect(intersectionSize(excerpt, long)).toBe(brute);
    const { leftInRight, rightInLeft } = containment(excerpt, long);
    expect(leftInRight).toBe(1);
    expect(rightInLeft).toBeCloseTo(excerpt.length / long.length, 5);
  });

  it('samples fingerprints by content, so every fingerprint of an excerpt is one of its source', () => {
    const source = shingleSet(text(2_000));
    const excerpt = shingleSet(text(300, 700));
    const sourceFingerprints = new Set(fingerprintsOf(source));
    const excerptFingerprints = fingerprintsOf(excerpt);
    expect(excerptFingerprints.length).toBeGreaterThan(10);
    expect(excerptFingerprints.every((hash) => sourceFingerprints.has(hash))).toBe(true);
  });

  it('stays bounded on a huge single-line text', () => {
    const started = Date.now();
    const shingles = shingleSet('word '.repeat(2_000_000));
    expect(shingles.length).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
