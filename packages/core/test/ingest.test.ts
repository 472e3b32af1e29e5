import { describe, expect, it } from 'vitest';
import { chunkText, countTokens } from '../src/ingest/chunker.ts';
import { ConverterRegistry, defaultConverters } from '../src/ingest/converters/registry.ts';
import { extractiveSummary, MAX_SECTIONS, sectionMarkdown } from '../src/ingest/sectioner.ts';

describe('sectionMarkdown', () => {
  const md =
    'Intro text.\n\n# Title\n\nFirst. Second.\n\n```\n# not a heading\n```\n\nSetext\n======\n\nunder setext\n\n## Sub ##\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';

  it('cuts sections at every heading, with the text before the first heading as its own section', () => {
    const s = sectionMarkdown(md, 'notes.md');
    expect(s.map((x) => [x.title, x.level, x.position])).toEqual([
      ['notes', 1, 0],
      ['Title', 1, 1],
      ['Setext', 1, 2],
      ['Sub', 2, 3],
    ]);
  });

  it('gives offsets that tile the Markdown exactly, each section starting at its heading', () => {
    const s = sectionMarkdown(md, 'notes.md');
    expect(s[0]!.start).toBe(0);
    expect(s.at(-1)!.end).toBe(md.length);
    for (let i = 1; i < s.length; i++) expect(s[i]!.start).toBe(s[i - 1]!.end);
    expect(md.slice(s[1]!.start)).toMatch(/^# Title/);
    expect(md.slice(s[2]!.start)).toMatch(/^Setext\n=/);
  });

  it('keeps underscores inside words in titles, and drops underscore emphasis', () => {
    const s = sectionMarkdown('## markitdown__test_mskanji\n\nBody\n\n## The _real_ __deal__\n\nMore\n', 'x.md');
    expect(s.map((x) => x.title)).toEqual(['markitdown__test_mskanji', 'The real deal']);
  });

  it('ignores heading-like lines inside fenced code', () => {
    expect(sectionMarkdown(md, 'n.md').map((s) => s.title)).not.toContain('not a heading');
  });

  it('writes an extractive summary of the section body without markup', () => {
    const s = sectionMarkdown(md, 'notes.md');
    expect(s[1]!.summary).toBe('First. Second. not a heading');
    expect(s[3]!.summary).toBe('a b 1 2');
  });

  it('cuts a document without headings into paragraph-aligned parts titled after the file', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} ${'word '.repeat(40)}`).join('\n\n');
    const s = sectionMarkdown(text, 'story.txt');
    expect(s.length).toBeGreaterThan(1);
    expect(s[0]!.title).toBe('story (part 1)');
    for (const x of s.slice(1)) expect(text.slice(x.start)).toMatch(/^Paragraph \d+/);
  });

  it('returns no sections for a blank document', () => {
    expect(sectionMarkdown(' \n\n ', 'x.md')).toEqual([]);
  });

  it('keeps at most MAX_SECTIONS sections by merging deeper headings into their parents', () => {
    const many = Array.from({ length: 8000 }, (_, i) => (i % 4 === 0 ? `# Part ${i}\n\ntext` : `### Detail ${i}\n\ntext`)).join('\n\n');
    const s = sectionMarkdown(many, 'big.md');
    expect(s.length).toBe(2000);
    expect(s.every((x) => x.level === 1)).toBe(true);
    expect(sectionMarkdown(Array.from({ length: MAX_SECTIONS * 2 }, (_, i) => `# H${i}`).join('\n'), 'h.md').length).toBeLessThanOrEqual(MAX_SECTIONS);
  });

  it('stays linear on a 12 MB single line', () => {
    const started = Date.now();
    expect(sectionMarkdown('word '.repeat(2_400_000), 'line.txt').length).toBe(3000);
    expect(Date.now() - started).toBeLessThan(20_000); // a generous bound that only a quadratic scan would break
  });

  it('summarises long text at a sentence boundary', () => {
    const s = extractiveSummary(`${'A short sentence here. '.repeat(30)}`);
    expect(s.length).toBeLessThanOrEqual(300);
    expect(s.endsWith('.')).toBe(true);
  });
});

describe('chunkText', () => {
  const text = Array.from({ length: 300 }, (_, i) => `token${i}`).join(' ');

  it('makes windows of at most size tokens that overlap by the given number of tokens', () => {
    const chunks = chunkText(text, 64, 16);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(64);
    expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
    const tail = chunks[0]!.content.split(' ').slice(-2).join(' ');
    expect(chunks[1]!.content).toContain(tail.split(' ').pop()!);
  });

  it('covers the whole text with no overlap when overlap is 0', () => {
    const chunks = chunkText(text, 64, 0);
    expect(chunks.reduce((n, c) => n + c.tokenCount, 0)).toBe(countTokens(text));
  });

  it('returns one chunk for a short text and none for blank text', () => {
    expect(chunkText('hello world', 512, 64)).toEqual([{ position: 0, content: 'hello world', tokenCount: 2, start: 0, end: 11 }]);
    expect(chunkText('   ', 512, 64)).toEqual([]);
  });

  it('never leaves a broken character at a window edge', () => {
    for (const c of chunkText('日本語のテキスト。'.repeat(200), 64, 8)) expect(c.content).not.toContain('\uFFFD');
  });

  describe('a table longer than one window', () => {
    const header = '| Patient | Drug | Dose (mg) | Outcome |\n| --- | --- | ---: | --- |';
    const rows = Array.from({ length: 120 }, (_, i) => `| P${i} | drug-${i % 7} | ${i * 5} | outcome ${i} |`);
    const text = `Intro paragraph before the table.\n\n${header}\n${rows.join('\n')}\n\nClosing words after it.`;
    const chunks = chunkText(text, 128, 16);
    const tableChunks = chunks.filter((c) => c.content.includes('| P'));

    it('repeats the header row at the top of every chunk of the table and cuts only between rows', () => {
      expect(tableChunks.length).toBeGreaterThan(3);
      for (const c of tableChunks) {
        expect(c.content.startsWith(`${header}\n`)).toBe(true);
        for (const line of c.content.split('\n').slice(2)) expect(rows).toContain(line);
        expect(c.tokenCount).toBe(countTokens(c.content));
        expect(c.tokenCount).toBeLessThanOrEqual(128);
      }
    });

    it('keeps every row exactly once, in order, and the text around the table', () => {
      expect(tableChunks.flatMap((c) => c.content.split('\n').slice(2))).toEqual(rows);
      expect(chunks[0]!.content).toBe('Intro paragraph before the table.');
      expect(chunks.at(-1)!.content).toBe('Closing words after it.');
      expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
    });

    it('windows a single row longer than a chunk under the header, and leaves a table that fits as plain text', () => {
      const huge = `| big | ${'word '.repeat(400)}|`;
      const pieces = chunkText(`| A | B |\n|---|---|\n| 1 | 2 |\n${huge}`, 64, 8);
      expect(pieces.length).toBeGreaterThan(5);
      for (const p of pieces) expect(p.content.startsWith('| A | B |\n|---|---|\n')).toBe(true);
      for (const p of pieces) expect(p.tokenCount).toBeLessThanOrEqual(64);
      const small = 'Before\n| A | B |\n|---|---|\n| 1 | 2 |\nAfter';
      expect(chunkText(small, 512, 64)).toEqual([{ position: 0, content: small, tokenCount: countTokens(small), start: 0, end: small.length }]);
    });

    it('cuts a 10,000-row table completely, the header on every chunk', () => {
      const big = `| id | value |\n|---|---|\n${Array.from({ length: 10_000 }, (_, i) => `| ${i} | v${i} |`).join('\n')}`;
      const out = chunkText(big, 512, 64);
      expect(out.every((c) => c.content.startsWith('| id | value |\n|---|---|\n') && c.tokenCount <= 512)).toBe(true);
      expect(out.flatMap((c) => c.content.split('\n').slice(2))).toHaveLength(10_000);
    });
  });
});

describe('the built-in converters', () => {
  const registry = new ConverterRegistry(defaultConverters());
  const enc = (s: string) => new TextEncoder().encode(s);

  it('keeps Markdown as it is', async () => {
    expect((await registry.convert(enc('# T\n\nbody'), 'a.md')).markdown).toBe('# T\n\nbody\n');
  });

  it('turns HTML headings, lists and tables into Markdown, dropping scripts', async () => {
    const r = await registry.convert(
      enc('<html><body><h1>T</h1><script>x()</script><ul><li>a</li></ul><table><tr><th>h</th></tr><tr><td>v</td></tr></table></body></html>'),
      'p.html',
    );
    expect(r.detectedType).toBe('text/html');
    expect(r.markdown).toContain('# T');
    expect(r.markdown).toContain('- a');
    expect(r.markdown).toMatch(/\| h \|/);
    expect(r.markdown).not.toContain('x()');
  });

  it('keeps plain text from turning into Markdown structure by accident', async () => {
    const r = await registry.convert(enc('# not a heading\n8. not a list\n- not a bullet'), 'a.txt');
    expect(r.markdown).toBe('\\# not a heading\n8\\. not a list\n\\- not a bullet\n');
    expect(sectionMarkdown(r.markdown, 'a.txt').map((s) => s.title)).toEqual(['a']);
  });

  it('decides the type from the bytes, not the name', async () => {
    await expect(registry.convert(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]), 'notes.md')).rejects.toMatchObject({
      code: 'unsupported_format',
    });
    expect((await registry.convert(enc('<!doctype html><p>hi</p>'), 'notes.txt')).detectedType).toBe('text/html');
  });

  it('rejects an empty file', async () => {
    await expect(registry.convert(new Uint8Array(), 'a.md')).rejects.toMatchObject({ code: 'unsupported_format', message: 'The file is empty' });
  });
});

describe('replaceTracked', () => {
  it('points placeholders at their URLs and moves later page offsets by the length added', async () => {
    const { replaceTracked } = await import('../src/ingest/prepare.ts');
    const md = 'page one ![a](dossier://img-1)\n\npage two ![b](dossier://img-2) end';
    const pageTwo = md.indexOf('page two');
    const r = replaceTracked(
      md,
      new Map([
        ['(dossier://img-1)', '(/v1/documents/d/images/xyz1)'],
        ['(dossier://img-2)', '(/v1/documents/d/images/xyz2)'],
      ]),
      { pageOffsets: [0, pageTwo] },
    );
    expect(r.markdown).toBe('page one ![a](/v1/documents/d/images/xyz1)\n\npage two ![b](/v1/documents/d/images/xyz2) end');
    expect(r.markdown.slice(r.pageOffsets![1]!)).toMatch(/^page two/);
    expect(r.pageOffsets![0]).toBe(0);
  });

  it('moves text regions with the text they cover', async () => {
    const { replaceTracked } = await import('../src/ingest/prepare.ts');
    const md = 'intro ![a](dossier://img-1) after\n\nlast line';
    const box: [number, number, number, number] = [0.1, 0.2, 0.9, 0.3];
    const spans = [
      { start: 0, end: md.indexOf('after') + 5, page: 1, box },
      { start: md.indexOf('last'), end: md.length, page: 2, box },
    ];
    const r = replaceTracked(md, new Map([['(dossier://img-1)', '(/v1/documents/d/images/long-image-id)']]), { regions: spans });
    const [first, second] = r.regions ?? [];
    expect(r.markdown.slice(first?.start, first?.end)).toBe('intro ![a](/v1/documents/d/images/long-image-id) after');
    expect(r.markdown.slice(second?.start, second?.end)).toBe('last line');
    expect(second?.page).toBe(2);
  });

  it('leaves placeholders of dropped images untouched', async () => {
    const { replaceTracked } = await import('../src/ingest/prepare.ts');
    expect(replaceTracked('x ![a](dossier://img-9)', new Map([['(dossier://img-1)', '(/u)']])).markdown).toBe('x ![a](dossier://img-9)');
  });
});

describe('prepareDocument with chunking (a small document chunked where it is converted)', () => {
  const registry = new ConverterRegistry(defaultConverters());
  const chunking = { chunkSize: 32, chunkOverlap: 4, maxBytes: 2_000 };
  const body = (words: number) => Array.from({ length: words }, (_, i) => `word${i}`).join(' ');

  it('returns the chunks the chunking runner would make from the same Markdown and sections', async () => {
    const { prepareDocument, sectionIdOf } = await import('../src/ingest/prepare.ts');
    const { chunkDocument } = await import('../src/ingest/chunk-document.ts');
    const input = {
      bytes: new TextEncoder().encode(`# One\n\n${body(60)}\n\n## Two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n`),
      filename: 'a.md',
      documentId: 'doc-1',
    };
    const prepared = await prepareDocument(registry, { ...input, chunking });
    const spans = prepared.sections.map((s) => ({ id: sectionIdOf('doc-1', s.position), position: s.position, start: s.start, end: s.end }));
    const expected = chunkDocument({ documentId: 'doc-1', markdown: prepared.markdown, sections: spans, chunkSize: 32, chunkOverlap: 4 });
    expect(expected.length).toBeGreaterThan(2);
    expect(prepared.chunks).toEqual(expected);
    expect(prepared.chunks?.some((c) => c.table)).toBe(true);
  });

  it('leaves Markdown larger than maxBytes, and a call without chunking, to the chunking runner', async () => {
    const { prepareDocument } = await import('../src/ingest/prepare.ts');
    const large = { bytes: new TextEncoder().encode(`# Big\n\n${body(600)}\n`), filename: 'big.md', documentId: 'doc-2' };
    expect((await prepareDocument(registry, { ...large, chunking })).chunks).toBeUndefined();
    const small = { bytes: new TextEncoder().encode('# Small\n\nshort\n'), filename: 's.md', documentId: 'doc-3' };
    expect((await prepareDocument(registry, small)).chunks).toBeUndefined();
  });
});
