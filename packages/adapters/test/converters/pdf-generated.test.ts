import { isDossierError } from '@dossier/core';
import { describe, expect, it } from 'vitest';
import { closeOcr } from '../../src/converters/pdf/index.ts';
import { column, convertBytes, makePdf, pagesOf, type TextOp } from './pdf-helpers.ts';

const LEFT = [
  'Left column opens the story with a sentence',
  'that keeps going for several lines of prose',
  'so that the layout has real paragraphs in it',
  'and the gutter between the columns is clear.',
  'The left column then ends its only paragraph',
  'with a final line that closes the thought.',
];
const RIGHT = [
  'Right column continues the argument with more',
  'words that must come after the whole left side',
  'when the page is read the way people read it,',
  'from top to bottom in each column in its turn.',
  'The right column also ends its paragraph here',
  'with one more line to make the point quite firm.',
];

describe('the PDF converter on generated layouts', () => {
  it('reads a two-column page column by column, after the full-width title', async () => {
    const pdf = makePdf([
      { texts: [{ text: 'A Two Column Article', x: 200, y: 740, size: 18, bold: true }, ...column(LEFT, 72, 700), ...column(RIGHT, 320, 700)] },
    ]);
    const { markdown } = await convertBytes(pdf, 'columns.pdf');
    expect(markdown).toMatch(/^# A Two Column Article\n/);
    const leftEnd = markdown.indexOf('closes the thought.');
    const rightStart = markdown.indexOf('Right column continues');
    expect(leftEnd).toBeGreaterThan(0);
    expect(rightStart).toBeGreaterThan(leftEnd);
    expect(markdown).toContain('Left column opens the story with a sentence that keeps going');
  });

  it('maps numbered section headings to levels by their depth and keeps body text as paragraphs', async () => {
    const texts: TextOp[] = [
      { text: '1 Introduction', x: 72, y: 740, size: 14, bold: true },
      ...column(['Body text of the introduction runs along here.'], 72, 720),
      { text: '1.1 Background', x: 72, y: 690, size: 12, bold: true },
      ...column(['Body text of the background runs along here.'], 72, 670),
      { text: '1.1.1 Details', x: 72, y: 640, size: 11, bold: true },
      ...column(['Body text of the details runs along here too.'], 72, 620),
      { text: '2 Method', x: 72, y: 590, size: 14, bold: true },
      ...column(['Body text of the method runs along here as well.'], 72, 570),
    ];
    const { markdown } = await convertBytes(makePdf([{ texts }]), 'sections.pdf');
    expect(markdown).toMatch(/^# 1 Introduction$/m);
    expect(markdown).toMatch(/^## 1\.1 Background$/m);
    expect(markdown).toMatch(/^### 1\.1\.1 Details$/m);
    expect(markdown).toMatch(/^# 2 Method$/m);
    expect(markdown).toMatch(/^Body text of the details runs along here too\.$/m);
  });

  it('turns bullet and numbered lines into Markdown lists, wrapped items staying whole', async () => {
    const texts: TextOp[] = [
      ...column(['Things to bring:'], 72, 740),
      ...column(['• Water for the whole day', '• A map of the area and a compass', '• Food'], 72, 720),
      ...column(['Steps to follow:'], 72, 670),
      ...column(['1. Read the instructions', '2. Pack the bag with everything listed', 'above and close it', '3. Leave early'], 72, 650),
    ];
    const { markdown } = await convertBytes(makePdf([{ texts }]), 'lists.pdf');
    expect(markdown).toContain('- Water for the whole day\n- A map of the area and a compass\n- Food');
    expect(markdown).toContain('1. Read the instructions\n2. Pack the bag with everything listed above and close it\n3. Leave early');
  });

  it('joins a word hyphenated at a line end and keeps paragraphs apart by their vertical gap', async () => {
    const texts = [
      ...column(['The committee met to discuss the recom-', 'mendations of the report in detail.'], 72, 700),
      ...column(['A second paragraph starts after a gap.'], 72, 660),
    ];
    const { markdown } = await convertBytes(makePdf([{ texts }]), 'hyphen.pdf');
    expect(markdown).toBe('The committee met to discuss the recommendations of the report in detail.\n\nA second paragraph starts after a gap.\n');
  });

  it('finds a borderless table from aligned columns and writes it as GFM with the first row as header', async () => {
    const row = (y: number, cells: string[]): TextOp[] => cells.map((text, i) => ({ text, x: 72 + i * 120, y, size: 10 }));
    const texts = [
      ...column(['Quarterly figures follow.'], 72, 740),
      ...row(710, ['Region', 'Units', 'Revenue', 'Growth']),
      ...row(696, ['North', '1,200', '$34,000', '4%']),
      ...row(682, ['South', '950', '$27,500', '-2%']),
      ...row(668, ['East', '1,410', '$40,100', '7%']),
      ...column(['The table ends before this closing sentence.'], 72, 630),
    ];
    const { markdown } = await convertBytes(makePdf([{ texts }]), 'table.pdf');
    expect(markdown).toContain(
      [
        '| Region | Units | Revenue | Growth |',
        '| --- | --- | --- | --- |',
        '| North | 1,200 | $34,000 | 4% |',
        '| South | 950 | $27,500 | -2% |',
        '| East | 1,410 | $40,100 | 7% |',
      ].join('\n'),
    );
    expect(markdown).toMatch(/^The table ends before this closing sentence\.$/m);
  });

  it('drops running headers, footers and page numbers that repeat on most pages, and records where each page starts', async () => {
    const pages = [1, 2, 3].map((n) => ({
      texts: [
        { text: 'ACME Corp Quarterly Report', x: 72, y: 760, size: 9 },
        ...column(
          [`${['First', 'Second', 'Third'][n - 1]} page body starts here with its own sentence.`, `It continues with a second line for page ${n}.`],
          72,
          700,
        ),
        { text: `Page ${n} of 3`, x: 280, y: 40, size: 9 },
      ],
    }));
    const r = await convertBytes(makePdf(pages), 'report.pdf');
    expect(r.markdown).not.toContain('ACME Corp');
    expect(r.markdown).not.toMatch(/Page \d of 3/);
    expect(r.pageOffsets).toHaveLength(3);
    expect(pagesOf(r).map((p) => p.split(' ')[0])).toEqual(['First', 'Second', 'Third']);
  });

  it('joins a paragraph that runs on to the next page, the page offset pointing into it', async () => {
    const pdf = makePdf([
      { texts: column(['The first page ends in the middle of a', 'sentence that carries on over the break and'], 72, 100) },
      { texts: column(['finishes on the second page.', 'Another paragraph follows there.'], 72, 740, { pitch: 30 }) },
    ]);
    const r = await convertBytes(pdf, 'runon.pdf');
    expect(r.markdown).toContain('carries on over the break and finishes on the second page.');
    expect(r.markdown.slice(r.pageOffsets?.[1])).toMatch(/^finishes on the second page\./);
  });

  it('extracts an embedded image as PNG, referenced where it was painted, numbered from 1', async () => {
    const rgb = new Uint8Array(64 * 64 * 3).map((_, i) => (i % 3 === 0 ? 200 : 40));
    const pdf = makePdf([
      {
        texts: [...column(['Text above the figure.'], 72, 740), ...column(['Text below the figure.'], 72, 500)],
        images: [{ width: 64, height: 64, rgb, x: 72, y: 560, w: 128, h: 128 }],
      },
    ]);
    const r = await convertBytes(pdf, 'figure.pdf');
    expect(r.markdown).toBe('Text above the figure.\n\n![Image 1](dossier://img-1)\n\nText below the figure.\n');
    expect(r.images).toHaveLength(1);
    expect(r.images[0]).toMatchObject({ placeholder: 'dossier://img-1', mimeType: 'image/png' });
    expect(Buffer.from(r.images[0]!.bytes.subarray(0, 8)).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
  });

  it('refuses a PDF with more pages than the limit, saying so', async () => {
    const pdf = makePdf([1, 2, 3].map((n) => ({ texts: column([`Page ${n}`], 72, 700) })));
    const err = await convertBytes(pdf, 'long.pdf', { maxPages: 2 }).catch((e: unknown) => e);
    expect(isDossierError(err, 'conversion_failed')).toBe(true);
    expect((err as Error).message).toMatch(/3 pages; at most 2/);
  });

  it('fails a PDF with no text and nothing to OCR rather than returning empty Markdown', async () => {
    const err = await convertBytes(makePdf([{ texts: [] }]), 'blank.pdf').catch((e: unknown) => e);
    expect(isDossierError(err, 'conversion_failed')).toBe(true);
    expect((err as Error).message).toMatch(/no text/);
    await closeOcr();
  });
});
