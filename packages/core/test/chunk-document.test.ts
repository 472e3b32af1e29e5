import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkIdOf } from '../src/ingest/chunk-document.ts';
import { countTokens, encodeBounded, MAX_BPE_WORD } from '../src/ingest/chunker.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('encodeBounded', () => {
  it('tokenizes ordinary text exactly as one encode would', () => {
    const text = 'The quick brown fox jumps over the lazy dog. Ünïcödé, 日本語 and emoji 🎉 too.';
    expect(countTokens(text)).toBe(encodeBounded(text).length);
    expect(encodeBounded(text).length).toBeGreaterThan(10);
  });

  it('encodes a word far longer than MAX_BPE_WORD slice by slice, keeping every character', () => {
    const word = 'qwertyuiopasdfghjklzxcvbnm'.repeat(4000); // 104,000 characters, no space
    const tokens = encodeBounded(`start ${word} end`);
    expect(tokens.length).toBeGreaterThan(word.length / MAX_BPE_WORD);
    const enc = get_encoding('cl100k_base');
    expect(new TextDecoder().decode(enc.decode(tokens))).toBe(`start ${word} end`);
    enc.free();
  });

  it('never cuts a surrogate pair when slicing a long run of emoji', () => {
    const run = '🎉'.repeat(MAX_BPE_WORD * 3);
    const enc = get_encoding('cl100k_base');
    expect(new TextDecoder().decode(enc.decode(encodeBounded(run)))).toBe(run);
    enc.free();
  });
});

describe('chunkDocument', () => {
  it('gives every chunk its stable id, its section and a table flag', () => {
    const md = '# Intro\n\nSome words here.\n\n# Data\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n';
    const split = md.indexOf('# Data');
    const chunks = chunkDocument({
      documentId: 'doc-1',
      markdown: utf8(md),
      sections: [{ id: 's0', position: 0, start: 0, end: split }, { id: 's1', position: 1, start: split, end: md.length }],
      chunkSize: 512,
      chunkOverlap: 64,
    });
    expect(chunks.map((c) => [c.sectionId, c.position, c.id])).toEqual([
      ['s0', 0, chunkIdOf('doc-1', 0, 0)],
      ['s1', 0, chunkIdOf('doc-1', 1, 0)],
    ]);
    expect(chunks.map((c) => c.table)).toEqual([false, true]);
    expect(chunks[0]!.content).toContain('Some words here.');
  });
});
