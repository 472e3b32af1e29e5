import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkIdOf } from '../src/ingest/chunk-document.ts';
import { chunkText, countTokens, encodeBounded, MAX_BPE_WORD } from '../src/ingest/chunker.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const decodeTokens = (tokens: ArrayLike<number>): string => {
  const enc = get_encoding('cl100k_base');
  try {
    return new TextDecoder().decode(enc.decode(Uint32Array.from(tokens)));
  } finally {
    enc.free();
  }
};

/** Texts of every kind a document brings: prose, CJK, emoji, bidi controls, special-token text, code, a table. */
const VARIED = [
  'The quick brown fox jumps over the lazy dog. Ünïcödé, 日本語 and emoji 🎉 too.',
  'Résumé 日本 — naïve café; \u202Eright-to-left\u202C and ZWJ 👩‍👩‍👧 families.\n\n  indented\tcode();',
  'Text with <|endoftext|> and <|im_start|> inside, as ordinary text.',
  'Numbers 1234567 3.14159 and $1,000,000; URLs https://example.org/a?b=c&d=e#f.',
  '| name | value |\n|---|---|\n| alpha | 1 |\n| beta | 2 |',
  '한국어 텍스트와 العربية و עברית mixed with English.\r\nWindows line ends.\r\n',
];

describe('encodeBounded', () => {
  it('tokenizes ordinary text exactly as one encode would', () => {
    const text = 'The quick brown fox jumps over the lazy dog. Ünïcödé, 日本語 and emoji 🎉 too.';
    expect(countTokens(text)).toBe(encodeBounded(text).length);
    expect(encodeBounded(text).length).toBeGreaterThan(10);
  });

  it("gives the tokens of tiktoken's cl100k_base, by which chunk sizes were set", () => {
    const enc = get_encoding('cl100k_base');
    for (const text of VARIED) expect(Array.from(encodeBounded(text))).toEqual(Array.from(enc.encode_ordinary(text)));
    enc.free();
  });

  it("windows a text into chunks whose bytes are the text's, a cut multi-byte character dropped at the edges", () => {
    const text = VARIED.join('\n\n').repeat(20);
    const chunks = chunkText(text, 7, 2);
    const enc = get_encoding('cl100k_base');
    const tokens = enc.encode_ordinary(text);
    enc.free();
    expect(chunks[0]!.content).toBe(
      decodeTokens(tokens.subarray(0, 7))
        .replace(/^\uFFFD+|\uFFFD+$/g, '')
        .trim(),
    );
    for (const chunk of chunks) expect(text.includes(chunk.content.replace(/^\uFFFD+|\uFFFD+$/g, ''))).toBe(true);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.floor(tokens.length / 5) - 1);
  });

  it('encodes a word far longer than MAX_BPE_WORD slice by slice, keeping every character', () => {
    const word = 'qwertyuiopasdfghjklzxcvbnm'.repeat(4000); // 104,000 characters, no space
    const tokens = encodeBounded(`start ${word} end`);
    expect(tokens.length).toBeGreaterThan(word.length / MAX_BPE_WORD);
    expect(decodeTokens(tokens)).toBe(`start ${word} end`);
  });

  it('never cuts a surrogate pair when slicing a long run of emoji', () => {
    const run = '🎉'.repeat(MAX_BPE_WORD * 3);
    expect(decodeTokens(encodeBounded(run))).toBe(run);
  });
});

describe('chunkDocument', () => {
  it('gives every chunk its stable id, its section and a table flag', () => {
    const md = '# Intro\n\nSome words here.\n\n# Data\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n';
    const split = md.indexOf('# Data');
    const chunks = chunkDocument({
      documentId: 'doc-1',
      markdown: utf8(md),
      sections: [
        { id: 's0', position: 0, start: 0, end: split },
        { id: 's1', position: 1, start: split, end: md.length },
      ],
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

describe('chunk spans', () => {
  it('gives every window its exact characters in the text (UTF-16), whatever characters the token edges cut', () => {
    const text = `  ${VARIED.join('\n\n').repeat(6)}  `;
    for (const [size, overlap] of [
      [16, 4],
      [7, 2],
      [64, 0],
    ] as const) {
      const chunks = chunkText(text, size, overlap);
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) expect(text.slice(c.start, c.end)).toBe(c.content);
      expect(chunks[0]!.start).toBe(2); // leading white space is not part of the chunk
    }
  });

  it("leaves a table's repeated header out of the spans of its continuation chunks", () => {
    const rows = Array.from({ length: 40 }, (_, i) => `| row ${i} | value ${i * 7} |`);
    const text = `Before the table.\n\n| name | value |\n|---|---|\n${rows.join('\n')}\n\nAfter it.`;
    const chunks = chunkText(text, 48, 8);
    const tableChunks = chunks.filter((c) => c.content.startsWith('| name | value |'));
    expect(tableChunks.length).toBeGreaterThan(2);
    expect(text.slice(tableChunks[0]!.start, tableChunks[0]!.end)).toBe(tableChunks[0]!.content);
    for (const c of tableChunks.slice(1)) {
      const own = text.slice(c.start, c.end);
      expect(own.startsWith('| row ')).toBe(true);
      expect(c.content).toBe(`| name | value |\n|---|---|\n${own}`);
    }
    const after = chunks[chunks.length - 1]!;
    expect(text.slice(after.start, after.end)).toBe(after.content);
  });

  it('places chunk spans in the document Markdown, not the section', () => {
    const md = '# One\n\nalpha beta gamma\n\n# Two\n\ndelta épsilon 🎉 zeta';
    const split = md.indexOf('# Two');
    const sections = [
      { id: 's0', position: 0, start: 0, end: split },
      { id: 's1', position: 1, start: split, end: md.length },
    ];
    const chunks = chunkDocument({ documentId: 'd', markdown: utf8(md), sections, chunkSize: 5, chunkOverlap: 1 });
    for (const c of chunks) expect(md.slice(c.charStart, c.charEnd)).toBe(c.content);
    expect(chunks.at(-1)!.charEnd).toBe(md.length);
  });
});
