/**
 * Conversion benchmark: every file of a folder (default ../shared/eval/docs) through the same worker pool the
 * pipeline uses; prints time, throughput, sections, tables, images, and for PDFs the characters of text
 * compared with poppler's pdftotext (run bench/convert/setup.sh first to install it).
 *
 *   node --import tsx bench/convert/run.ts [folder] [--out bench/RESULTS.md]
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createConversionPool } from '@dossier/adapters';
import type { PreparedDocument } from '@dossier/core';
import { stableId } from '@dossier/core/internal';
import { machineLine, writeSection } from './report.ts';

interface Row {
  file: string;
  bytes: number;
  ms: number;
  pages: number | null;
  sections: number;
  tables: number;
  images: number;
  chars: number;
  pdftotextChars: number | null;
  result: string;
}

const countTables = (md: string): number => (md.match(/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$/gm) ?? []).length;
const textChars = (s: string): number => s.replace(/!\[[^\]]*\]\([^)]*\)/g, '').replace(/[\s|#*_`>-]/g, '').length;

function pdftotextChars(path: string): number | null {
  try {
    return textChars(execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  } catch {
    return null;
  }
}

function row(file: string, bytes: number, ms: number, p: PreparedDocument | null, error: string | null, path: string): Row {
  const isPdf = readFileSync(path).subarray(0, 5).toString('latin1') === '%PDF-';
  return {
    file,
    bytes,
    ms,
    pages: p?.pageOffsets?.length ?? null,
    sections: p?.sections.length ?? 0,
    tables: p ? countTables(new TextDecoder().decode(p.markdown)) : 0,
    images: p?.images.length ?? 0,
    chars: p ? textChars(new TextDecoder().decode(p.markdown)) : 0,
    pdftotextChars: isPdf ? pdftotextChars(path) : null,
    result: error ?? 'ok',
  };
}

function table(rows: Row[]): string {
  const head =
    '| file | KB | ms | pages/s or KB/s | pages | sections | tables | images | text chars | pdftotext chars | result |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|';
  const lines = rows.map((r) => {
    const rate = r.pages ? `${(r.pages / (r.ms / 1000)).toFixed(1)} p/s` : `${(r.bytes / 1024 / (r.ms / 1000)).toFixed(0)} KB/s`;
    return `| ${r.file} | ${(r.bytes / 1024).toFixed(0)} | ${r.ms} | ${rate} | ${r.pages ?? ''} | ${r.sections} | ${r.tables} | ${r.images} | ${r.chars} | ${r.pdftotextChars ?? ''} | ${r.result} |`;
  });
  return [head, ...lines].join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outIdx = args.indexOf('--out');
  const out = outIdx >= 0 ? args[outIdx + 1] : null;
  const folder = resolve(args.find((a, i) => !a.startsWith('--') && i !== outIdx + 1) ?? join(import.meta.dirname, '../../../shared/eval/docs'));
  const pool = await createConversionPool({ threads: 1, timeoutMs: 300_000, maxMemoryMb: 2048 });
  await pool.run({ bytes: new TextEncoder().encode('# warm-up'), filename: 'w.md', documentId: stableId('warm') }); // load converters first
  const rows: Row[] = [];
  for (const name of readdirSync(folder)
    .filter((f) => statSync(join(folder, f)).isFile() && !f.endsWith('.tsv'))
    .sort()) {
    const path = join(folder, name);
    const bytes = readFileSync(path);
    const started = performance.now();
    let prepared: PreparedDocument | null = null;
    let error: string | null = null;
    try {
      prepared = await pool.run({ bytes, filename: name, documentId: stableId(name) });
    } catch (err) {
      error = `error: ${(err as Error).message.slice(0, 120)}`;
    }
    rows.push(row(basename(name), bytes.length, Math.round(performance.now() - started), prepared, error, path));
    process.stderr.write(`${name}: ${rows.at(-1)!.ms} ms ${rows.at(-1)!.result}\n`);
  }
  await pool.close();
  const text = `${machineLine()}\n\nCommand: \`node --import tsx bench/convert/run.ts\` over ${folder.replace(/.*\/shared\//, '../shared/')} (one conversion thread, the pipeline's worker pool).\n\n${table(rows)}`;
  console.log(text);
  if (out) writeSection(out, 'Conversion', text);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
