/**
 * The bare engine under Dossier: one LanceDB table with a row per BEIR document and a native FTS index,
 * queried with the raw query text and scored exactly as run.ts scores the pipeline. Three variants:
 * LanceDB's default FTS options; the options our adapter uses (FTS_OPTIONS); and those options over the
 * text as the pipeline indexes it (section title + chunk content, so the title appears twice).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { FTS_OPTIONS } from '../../packages/adapters/src/lancedb/tables.ts';
import { parseBenchArgs, REPO_ROOT } from './args.ts';
import { type BeirDoc, batches, readCorpus, readTestQueries, toMarkdown } from './dataset.ts';
import { evaluate, percentile, rankDocuments } from './metrics.ts';
import { commandLine, fixed, markdownTable, metricRows, mib, type Row, section, upsertSection } from './report.ts';
import { sampleRss } from './rss.ts';

interface Variant {
  name: string;
  options: Partial<lancedb.FtsOptions> | undefined;
  text: (d: BeirDoc) => string;
}

const VARIANTS: Variant[] = [
  { name: 'default FTS options, title + text', options: undefined, text: (d) => `${d.title} ${d.text}` },
  { name: 'adapter FTS_OPTIONS, title + text', options: FTS_OPTIONS, text: (d) => `${d.title} ${d.text}` },
  // The pipeline's `text` column is `${sectionTitle}\n${content}`, and the content starts with `# title`.
  { name: 'adapter FTS_OPTIONS, pipeline row text', options: FTS_OPTIONS, text: (d) => `${d.title}\n${toMarkdown(d).trim()}` },
];

/** A table of the corpus (one row per document) with its FTS index; returns the build time. */
async function buildTable(db: lancedb.Connection, v: Variant, dataset: string, limitDocs: number) {
  const started = performance.now();
  let table: lancedb.Table | null = null;
  for await (const batch of batches(readCorpus(dataset, limitDocs), 1000)) {
    const rows = batch.map((d) => ({ id: d.id, text: v.text(d) }));
    if (table) await table.add(rows);
    else table = await db.createTable(`corpus_${VARIANTS.indexOf(v)}`, rows);
  }
  if (!table) throw new Error(`no documents in ${dataset}`);
  await table.createIndex('text', { config: lancedb.Index.fts(v.options) });
  return { table, seconds: (performance.now() - started) / 1000 };
}

/** Run every test query on one variant and return its table rows. */
async function runVariant(db: lancedb.Connection, v: Variant, args: ReturnType<typeof parseBenchArgs>, q: Awaited<ReturnType<typeof readTestQueries>>) {
  const { table, seconds } = await buildTable(db, v, args.dataset, args.limitDocs);
  const rankings = new Map<string, string[]>();
  const latencies: number[] = [];
  for (const query of q.queries) {
    const t0 = performance.now();
    const records = await table.query().fullTextSearch(query.text, { columns: 'text' }).select(['id', '_score']).limit(args.hits).toArray();
    latencies.push(performance.now() - t0);
    rankings.set(
      query.id,
      rankDocuments(
        records.map((r) => ({ docId: String(r.id), score: Number(r._score) })),
        query.id,
      ),
    );
  }
  table.close();
  const rows: Row[] = [
    ...metricRows(evaluate(rankings, q.qrels)),
    ['documents', String(await countRows(db, v))],
    ['load + index build (s)', fixed(seconds, 1)],
    ...[50, 95, 99].map((p) => [`query p${p} (ms)`, fixed(percentile(latencies, p), 1)] as Row),
  ];
  return rows;
}

async function countRows(db: lancedb.Connection, v: Variant): Promise<number> {
  const t = await db.openTable(`corpus_${VARIANTS.indexOf(v)}`);
  const n = await t.countRows();
  t.close();
  return n;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const args = parseBenchArgs(argv);
  const rss = sampleRss(100);
  const dir = await mkdtemp(join(tmpdir(), 'dossier-lance-baseline-'));
  const db = await lancedb.connect(dir);
  try {
    const q = await readTestQueries(args.dataset, args.limitQueries);
    const sections: string[] = [];
    for (const v of VARIANTS) {
      const rows = await runVariant(db, v, args, q);
      process.stdout.write(`\n${v.name}\n${markdownTable(rows)}\n`);
      sections.push(`### ${v.name}\n\n${markdownTable(rows)}\n`);
    }
    process.stdout.write(`\npeak RSS ${mib(rss.stop())}\n`);
    const full = args.limitDocs === Number.POSITIVE_INFINITY && args.limitQueries === Number.POSITIVE_INFINITY;
    const out = args.out ?? (full ? `${REPO_ROOT}/bench/RESULTS.md` : null);
    if (!out) return;
    const heading = `${basename(args.dataset)} — bare LanceDB FTS baseline`;
    const notes = [`One row per document; documents ranked from ${args.hits} hits per query, query id hits dropped`, `Peak RSS ${mib(rss.stop())}`];
    await upsertSection(out, heading, section(heading, commandLine('bench/beir/lance-baseline.ts', argv), notes, sections.join('\n')));
    process.stderr.write(`wrote ${relative(REPO_ROOT, out)}\n`);
  } finally {
    db.close();
    if (args.keep) process.stderr.write(`data kept in ${dir}\n`);
    else await rm(dir, { recursive: true, force: true });
  }
}

await main();
