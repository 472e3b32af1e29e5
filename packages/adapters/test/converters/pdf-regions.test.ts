import { chunkDocument } from '@dossier/core/conversion';
import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/converters/pdf/pdfjs.ts';
import { column, convertBytes, makePdf } from './pdf-helpers.ts';

const PROSE = [
  'The tenant shall pay the rent on the first day',
  'of every month, by transfer to the account the',
  'landlord names in writing, without deduction.',
];
const LATER = ['Either party may end this lease with three months', 'notice given in writing to the other party.'];

/** Two pages: a title, a paragraph and a table on page 1; a paragraph low on page 2 (letter size, 612 × 792 pt). */
function leasePdf(): Uint8Array {
  return makePdf([
    {
      texts: [
        { text: 'Lease Agreement', x: 72, y: 740, size: 18, bold: true },
        ...column(PROSE, 72, 700),
        { text: 'Item', x: 72, y: 600 },
        { text: 'Amount', x: 300, y: 600 },
        { text: 'Rent', x: 72, y: 586 },
        { text: '1200', x: 300, y: 586 },
        { text: 'Deposit', x: 72, y: 572 },
        { text: '2400', x: 300, y: 572 },
      ],
    },
    { texts: column(LATER, 72, 200) },
  ]);
}

describe('text regions of a PDF conversion', () => {
  it('records, for every line, its characters in the Markdown, its page and its box', async () => {
    const r = await convertBytes(leasePdf(), 'lease.pdf');
    const regions = r.regions ?? [];
    expect(regions.length).toBeGreaterThanOrEqual(PROSE.length + LATER.length + 3);
    for (const reg of regions) {
      expect(reg.end).toBeGreaterThan(reg.start);
      for (const v of reg.box) expect(v >= 0 && v <= 1).toBe(true);
      expect(reg.box[2]).toBeGreaterThan(reg.box[0]);
      expect(reg.box[3]).toBeGreaterThan(reg.box[1]);
    }
    const at = (needle: string) => regions.find((g) => r.markdown.slice(g.start, g.end).includes(needle));
    const title = at('Lease Agreement');
    expect(title?.page).toBe(1);
    expect(title?.box[1]).toBeCloseTo((792 - 740 - 18 * 0.75) / 792, 1); // near the top of the page
    expect(r.markdown.slice(at('of every month')?.start, at('of every month')?.end).trim()).toBe('of every month, by transfer to the account the');
    const deposit = at('Deposit');
    expect(r.markdown.slice(deposit?.start, deposit?.end)).toContain('2400');
    const notice = at('notice given');
    expect(notice?.page).toBe(2);
    expect(notice?.box[1]).toBeGreaterThan(0.7); // y = 200 pt from the bottom: low on the page
  });

  it('covers every character of every chunk with the regions of the lines it came from', async () => {
    const r = await convertBytes(leasePdf(), 'lease.pdf');
    const chunks = chunkDocument({
      documentId: 'd',
      markdown: new TextEncoder().encode(r.markdown),
      sections: [{ id: 's', position: 0, start: 0, end: r.markdown.length }],
      chunkSize: 12,
      chunkOverlap: 2,
    });
    expect(chunks.length).toBeGreaterThan(3);
    const regions = r.regions ?? [];
    for (const c of chunks) {
      expect(r.markdown.slice(c.charStart, c.charEnd)).toBe(c.content);
      const own = regions.filter((g) => g.start < c.charEnd && g.end > c.charStart);
      expect(own.length).toBeGreaterThan(0);
      const words = c.content.match(/[A-Za-z0-9]{3,}/g) ?? [];
      const lines = own.map((g) => r.markdown.slice(g.start, g.end)).join(' ');
      for (const w of words) expect(lines).toContain(w);
    }
  });
});

/**
 * A scan of a text page: the page drawn by pdf.js at `dpi`, its pixels placed as one full-page image on a page with no
 * text layer (as a scanner's PDF is), so the converter must OCR it.
 */
async function scanOf(textPdf: Uint8Array, dpi: number): Promise<Uint8Array> {
  const doc = await openPdf(textPdf);
  const page = await doc.getPage(1);
  const viewport = page.getViewport({ scale: dpi / 72 });
  const [width, height] = [Math.ceil(viewport.width), Math.ceil(viewport.height)];
  const target = doc.canvasFactory.create(width, height);
  const context = target.context as {
    fillStyle: string;
    fillRect(...a: number[]): void;
    getImageData(...a: number[]): { data: Uint8ClampedArray; width: number; height: number };
  };
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  await page.render({ canvas: target.canvas, canvasContext: target.context, viewport }).promise;
  const { data } = context.getImageData(0, 0, width, height);
  await doc.destroy();
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, o = 0; i < data.length; i += 4, o += 3) rgb.set([data[i] as number, data[i + 1] as number, data[i + 2] as number], o);
  return makePdf([{ texts: [], images: [{ width, height, rgb, x: 0, y: 0, w: 612, h: 792 }] }]);
}

describe('text regions of a scanned page (OCR word boxes)', () => {
  it('gives OCR lines their boxes: each line of the scan found where it was printed', async () => {
    const printed = makePdf([
      { texts: [{ text: 'Inspection Report', x: 72, y: 700, size: 22, bold: true }, ...column(LATER, 72, 300, { size: 16, pitch: 24 })] },
    ]);
    const r = await convertBytes(await scanOf(printed, 150), 'scan.pdf', { ocrDpi: 150 });
    expect(r.markdown).toMatch(/three months/);
    const regions = r.regions ?? [];
    expect(regions.length).toBeGreaterThanOrEqual(3);
    expect(regions.every((g) => g.page === 1 && g.box.every((v) => v >= 0 && v <= 1) && g.box[2] > g.box[0] && g.box[3] > g.box[1])).toBe(true);
    const at = (needle: string) => regions.find((g) => r.markdown.slice(g.start, g.end).includes(needle));
    // Printed at y = 700 pt (title) and 300 / 276 pt (the two lines) from the bottom of a 792 pt page, x from 72 pt.
    expect(at('Inspection')?.box[1]).toBeLessThan(0.15);
    const notice = at('notice given');
    expect(notice?.box[1]).toBeGreaterThan((792 - 300) / 792);
    expect(notice?.box[3]).toBeLessThan((792 - 276 + 10) / 792);
    expect(notice?.box[0]).toBeCloseTo(72 / 612, 1);
  }, 120_000);
});
