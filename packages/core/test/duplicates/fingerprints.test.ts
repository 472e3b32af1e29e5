import { describe, expect, it } from 'vitest';
import { blankArtefacts, duplicateProfile, indexedFingerprints, normalisedWords, stem } from '../../src/duplicates/fingerprints.ts';

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango'.split(' ');
const text = (count: number, offset = 0) =>
  Array.from({ length: count }, (_, index) => `${WORDS[(index + offset) % WORDS.length]}${Math.floor((index + offset) / WORDS.length)}`).join(' ');

describe('near-duplicate fingerprints', () => {
  it('reads the same words from Markdown, HTML-ish and plain renderings of one text', () => {
    expect(normalisedWords('# Títle\n\n**Bold** [link](http://x.test/a) and <b>tags</b>, café!')).toEqual(['title', 'bold', 'link', 'and', 'tags', 'cafe']);
    expect(duplicateProfile('The quick brown fox jumps over the lazy dog.').shingles).toEqual(
      duplicateProfile('the QUICK brown   fox\n\njumps over the *lazy* dog').shingles,
    );
  });

  it('joins words hyphenated across a line break and skips page numbers and running headers', () => {
    expect(normalisedWords('the infor-\nmation retrieval')).toEqual(['the', 'information', 'retrieval']);
    const paged = [
      'Annual report - draft',
      'first page text here',
      'Page 1 of 3',
      'Annual report - draft',
      'second page text',
      '- 2 -',
      'Annual report - draft',
      'third page',
    ].join('\n');
    expect(normalisedWords(paged)).toEqual(['first', 'page', 'text', 'here', 'second', 'page', 'text', 'third', 'page']);
    expect(blankArtefacts(paged)).toHaveLength(paged.length); // offsets into the Markdown are kept
  });

  it("leaves stop words out and folds inflections, keeping each word's span in the Markdown", () => {
    const markdown = 'The classes were defined in a module.';
    const profile = duplicateProfile(markdown);
    expect(profile.words).toHaveLength(3); // classes, defined, module
    expect([...profile.starts].map((start, index) => markdown.slice(start, profile.ends[index]))).toEqual(['classes', 'defined', 'module']);
    expect(duplicateProfile('a class is defining modules').words).toEqual(profile.words);
    expect([stem('classes'), stem('class'), stem('studies'), stem('defined'), stem('define')]).toEqual(['class', 'class', 'study', 'defin', 'defin']);
  });

  it('samples fingerprints by content, so every fingerprint of an excerpt is one of its source', () => {
    const source = new Set(indexedFingerprints(duplicateProfile(text(2_000))));
    const excerpt = indexedFingerprints(duplicateProfile(text(300, 700)));
    expect(excerpt.length).toBeGreaterThan(40);
    expect(excerpt.every((hash) => source.has(hash))).toBe(true);
    const short = duplicateProfile(text(40));
    expect(indexedFingerprints(short)).toEqual([...short.shingles]); // short texts index every shingle
  });

  it('stays bounded on a huge single-line text', () => {
    const started = Date.now();
    const profile = duplicateProfile('word '.repeat(2_000_000));
    expect(profile.shingles.length).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
