/**
 * Citations benchmark (issue 39), on the PDFs of ../shared/eval/docs:
 * - coverage: each chunk's text re-extracted from inside its boxes (the page's text layer, or a fresh OCR of the
 *   page for a scan) and the share of the chunk's words found there;
 * - storage: what regions add per chunk (the positions JSON, two Int32 columns, and the document's regions.json);
 * - time: a whole conversion, and what recording regions costs inside it and after it.
 *
 *   node --import tsx bench/citations/run.ts [folder]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chunkDocument, type ConvertResult } from '@dossier/core/conversion';
import { encodePositions, encodeRegions, passagePositions } from '../../packages/core/src/documents/regions.ts';
import { pdfConverters } from '../../packages/adapters/src/converters/pdf/index.ts';
import { closeOcr } from '../../packages/adapters/src/converters/pdf/index.ts';
import { toBlocks } from '../../packages/adapters/src/converters/pdf/blocks.ts';
import { dropFurniture } from '../../packages/adapters/src/converters/pdf/furniture.ts';
import { layoutPage } from '../../packages/adapters/src/converters/pdf/layout.ts';
import { renderPages } from '../../packages/adapters/src/converters/pdf/markdown.ts';
import { ocrRuns } from '../../packages/adapters/src/converters/pdf/ocr.ts';
import { needsOcr, readPage } from '../../packages/adapters/src/converters/pdf/page-read.ts';
import { pageProtos } from '../../packages/adapters/src/converters/pdf/paragraphs.ts';
import { loadPdfjs, openPdf } from '../../packages/adapters/src/converters/pdf/pdfjs.ts';
import { renderPage } from '../../packages/adapters/src/converters/pdf/render.ts';
import { docStats } from '../../packages/adapters/src/converters/pdf/stats.ts';
import type { Block, PageLayout, Run } from '../../packages/adapters/src/converters/pdf/types.ts';

const folder = resolve(process.argv[2] ?? '../shared/eval/docs');
const CHUNK = { chunkSize: 512, chunkOverlap: 64 };
const converter = pdfConverters().find((c) => c.name === 'pdf')!;

/** A word placed on a page, its centre as fractions of the page. */
interface PlacedWord {
  word: string;
  cx: number;
  cy: number;
}

const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];

/** A run's words spread over its width in proportion to their characters. */
function placeRun(r: Run, width: number, height: number): PlacedWord[] {
  const out: PlacedWord[] = [];
  const chars = Math.max(1, r.text.length);
  for (const m of r.text.matchAll(/[\p{L}\p{N}]{2,}/gu)) {
    const mid = (m.index + m[0].length / 2) / chars;
    out.push({ word: m[0].toLowerCase(), cx: (r.x + mid * r.width) / width, cy: (r.y - 0.25 * r.size) / height });
  }
  return out;
}

/** Every word of every page, re-read independently of the conversion: the text layer, or OCR of a fresh rendering. */
async function pageWords(bytes: Uint8Array): Promise<Map<number, PlacedWord[]>> {
  const pdfjs = await loadPdfjs();
  const doc = await openPdf(bytes);
  const out = new Map<number, PlacedWord[]>();
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await readPage(page, pdfjs);
      let runs = content.runs;
      if (needsOcr(content)) {
        const { png, scale } = await renderPage(doc, page, 250); // not the conversion's resolution: a second, independent reading
        runs = await ocrRuns(png, scale);
      }
      out.set(
        n,
        runs.flatMap((r) => placeRun(r, content.width, content.height)),
      );
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
  return out;
}

/** The share of a chunk's words found among the words whose centres lie inside its boxes (a small margin allowed). */
function coverage(content: string, boxes: { page: number; box: number[] }[], words: Map<number, PlacedWord[]>): { found: number; total: number } {
  const m = 0.004;
  const inside = new Map<string, number>();
  for (const { page, box } of boxes) {
    for (const w of words.get(page) ?? []) {
      if (w.cx >= box[0]! - m && w.cx <= box[2]! + m && w.cy >= box[1]! - m && w.cy <= box[3]! + m) inside.set(w.word, (inside.get(w.word) ?? 0) + 1);
    }
  }
  const wanted = wordsOf(content.replace(/!\[[^\]]*\]\([^)]*\)/g, ''));
  let found = 0;
  for (const w of wanted) {
    const left = inside.get(w) ?? 0;
    if (left > 0) {
      found += 1;
      inside.set(w, left - 1);
    }
  }
  return { found, total: wanted.length };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Text-layer pages' layouts (figures left out), as the converter builds them. */
async function textLayouts(bytes: Uint8Array): Promise<PageLayout[]> {
  const pdfjs = await loadPdfjs();
  const doc = await openPdf(bytes);
  const layouts: PageLayout[] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await readPage(page, pdfjs);
      layouts.push(needsOcr(content) ? { width: content.width, height: content.height, items: [], ocr: true } : layoutPage(content.runs, [], content, false));
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
  return layouts;
}

/** Milliseconds of building the Markdown from layouts, with the line records and without (stripped before rendering). */
function renderCost(layouts: PageLayout[]): { withRegions: number; without: number } {
  const blocksOf = (): Block[][] => {
    const pages = dropFurniture(layouts);
    const stats = docStats(pages);
    return toBlocks(
      pages.map((p) => pageProtos(p, stats)),
      stats,
    );
  };
  const time = (strip: boolean): number => {
    const runs: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const blocks = blocksOf();
      if (strip) for (const b of blocks.flat()) b.src = undefined;
      renderPages(blocks);
      runs.push(performance.now() - t0);
    }
    return median(runs);
  };
  return { withRegions: time(false), without: time(true) };
}

interface Row {
  file: string;
  pages: number;
  chunks: number;
  found: number;
  total: number;
  fullChunks: number;
  positionsBytes: number;
  regionsBytes: number;
  convertMs: number;
  afterMs: number;
  render: { withRegions: number; without: number };
}

async function measure(file: string): Promise<Row> {
  const bytes = new Uint8Array(readFileSync(join(folder, file)));
  const t0 = performance.now();
  const r: ConvertResult = await converter.convert({ bytes, filename: file, detectedType: 'application/pdf' });
  const convertMs = performance.now() - t0;
  const md = r.markdown;
  const chunks = chunkDocument({
    documentId: 'bench',
    markdown: new TextEncoder().encode(md),
    sections: [{ id: 's', position: 0, start: 0, end: md.length }],
    ...CHUNK,
  });
  const regions = r.regions ?? [];
  const t1 = performance.now();
  const blob = encodeRegions(regions);
  const positions = chunks.map((c) => passagePositions(regions, c.charStart, c.charEnd));
  const encoded = positions.map((p) => (p ? encodePositions(p) : ''));
  const afterMs = performance.now() - t1;
  const words = await pageWords(bytes);
  let found = 0;
  let total = 0;
  let fullChunks = 0;
  chunks.forEach((c, i) => {
    const cov = coverage(c.content, positions[i]?.regions ?? [], words);
    found += cov.found;
    total += cov.total;
    if (cov.found >= 0.9 * cov.total) fullChunks += 1;
  });
  return {
    file,
    pages: r.pageOffsets?.length ?? 0,
    chunks: chunks.length,
    found,
    total,
    fullChunks,
    positionsBytes: encoded.reduce((n, s) => n + Buffer.byteLength(s), 0),
    regionsBytes: blob.length,
    convertMs,
    afterMs,
    render: renderCost(await textLayouts(bytes)),
  };
}

const pct = (a: number, b: number): string => (b ? `${((100 * a) / b).toFixed(1)} %` : 'n/a');
const files = readdirSync(folder)
  .filter((f) => f.endsWith('.pdf'))
  .sort();
const rows: Row[] = [];
for (const f of files) {
  rows.push(await measure(f));
  const r = rows[rows.length - 1]!;
  console.error(`${f}: ${r.chunks} chunks, coverage ${pct(r.found, r.total)}`);
}
await closeOcr();
console.log(
  '| PDF | pages | chunks | words of chunks found inside their boxes | chunks ≥ 90 % | positions B/chunk | regions.json B | convert ms | regions after convert ms | render ms with / without line records |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.file} | ${r.pages} | ${r.chunks} | ${pct(r.found, r.total)} (${r.found}/${r.total}) | ${r.fullChunks}/${r.chunks} | ${(r.positionsBytes / Math.max(1, r.chunks)).toFixed(0)} | ${r.regionsBytes} | ${r.convertMs.toFixed(0)} | ${r.afterMs.toFixed(2)} | ${r.render.withRegions.toFixed(2)} / ${r.render.without.toFixed(2)} |`,
  );
}
const sum = (f: (r: Row) => number): number => rows.reduce((n, r) => n + f(r), 0);
const chunks = sum((r) => r.chunks);
console.log(
  `\nAll: ${chunks} chunks; words found ${pct(
    sum((r) => r.found),
    sum((r) => r.total),
  )}; chunks ≥ 90 %: ${sum((r) => r.fullChunks)}/${chunks};`,
);
console.log(
  `storage per chunk: positions ${(sum((r) => r.positionsBytes) / chunks).toFixed(0)} B + 8 B of span + regions.json ${(sum((r) => r.regionsBytes) / chunks).toFixed(0)} B;`,
);
console.log(
  `conversion ${sum((r) => r.convertMs).toFixed(0)} ms in all; regions after conversion ${sum((r) => r.afterMs).toFixed(1)} ms; Markdown building ${sum((r) => r.render.withRegions).toFixed(1)} ms with line records, ${sum((r) => r.render.without).toFixed(1)} ms without.`,
);
