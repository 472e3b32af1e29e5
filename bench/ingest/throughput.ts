/**
 * Ingestion throughput through the library (issue 11): a BEIR corpus (default SciFact, read in place) uploaded
 * through `createDossier()` (each record as the Markdown `# title\n\ntext`) until the pipeline is idle, beside the
 * bare LanceDB load of the same rows into one table with its FTS index.
 *
 *   node --import tsx bench/ingest/throughput.ts [--dataset DIR] [--limit-docs N] [--workers N] [--uploaders N] [--out bench/RESULTS.md]
 *
 * The clock starts once the library has started: a few documents ingested into a collection of their own first
 * (warm-up.mjs), whose time from createDossier() is printed as the start-up figure.
 *
 * `--uploaders` (default 1) uploads that many documents at once, as a bulk import would; with one, the figure is bounded
 * by how fast a single caller's sequential uploads return while the pipeline shares the event loop.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { DEFAULT_PIPELINE_CONCURRENCY } from '@dossier/core/internal';
import { DEFAULT_DATASET } from '../beir/args.ts';
import { readCorpus, toMarkdown } from '../beir/dataset.ts';
import { commandLine, fixed, markdownTable, type Row, section, upsertSection } from '../beir/report.ts';
import { sampleRss } from '../beir/rss.ts';
import { bareLanceLoad } from './bare-load.mjs';
import { warmUp } from './warm-up.mjs';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: DEFAULT_DATASET },
    'limit-docs': { type: 'string' },
    /** Pipeline jobs at once; default: the library's (DEFAULT_PIPELINE_CONCURRENCY). */
    workers: { type: 'string' },
    uploaders: { type: 'string', default: '1' },
    out: { type: 'string' },
  },
});

async function main(): Promise<void> {
  const docs: { id: string; text: string }[] = [];
  for await (const d of readCorpus(values.dataset!, values['limit-docs'] ? Number(values['limit-docs']) : Number.POSITIVE_INFINITY)) {
    docs.push({ id: d.id, text: toMarkdown(d) });
  }
  const load = loadavg()[0]!;
  const dir = await mkdtemp(join(tmpdir(), 'dossier-throughput-'));
  const rss = sampleRss(100);
  const dossier = await createDossier({
    dataDir: dir,
    embeddingModel: 'none',
    allowModelDownload: false,
    ...(values.workers ? { workers: { concurrency: Number(values.workers) } } : {}),
  });
  let seconds = 0;
  /** When the last of the sequential uploads returned: the pipeline keeps pace when this is near `seconds`. */
  let uploadSeconds = 0;
  let statuses = '';
  let startSeconds = 0;
  try {
    const local = await dossier.local();
    startSeconds = await warmUp(
      dossier,
      local,
      docs.map((d) => d.text),
    );
    const c = await local.collections.create({ name: 'throughput' });
    const t0 = performance.now();
    let next = 0;
    const uploader = async () => {
      for (let d = docs[next++]; d; d = docs[next++]) await local.documents.upload(c.id, { filename: `${d.id}.md`, bytes: new TextEncoder().encode(d.text) });
    };
    await Promise.all(Array.from({ length: Number(values.uploaders) }, uploader));
    uploadSeconds = (performance.now() - t0) / 1000;
    await dossier.idle();
    seconds = (performance.now() - t0) / 1000;
    const stats = await local.collections.stats(c.id);
    statuses = Object.entries(stats.statusCounts)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ');
  } finally {
    await dossier.close();
    await rm(dir, { recursive: true, force: true });
  }
  const bareSeconds = await bareLanceLoad(docs);
  const rows: Row[] = [
    ['documents (statuses at the end)', `${docs.length} (${statuses})`],
    ['library start: createDossier() to 8 warm-up documents ready (s)', fixed(startSeconds, 1)],
    ['library: upload to idle pipeline (s)', fixed(seconds, 1)],
    ['library: documents/s', fixed(docs.length / seconds, 1)],
    ['library: the last upload returned after (s)', fixed(uploadSeconds, 1)],
    ['bare LanceDB: load + FTS index of the same rows (s)', fixed(bareSeconds, 1)],
    ['bare LanceDB: rows/s', fixed(docs.length / bareSeconds, 0)],
    ['peak RSS (MiB)', String(Math.round(rss.stop() / 2 ** 20))],
  ];
  process.stdout.write(`${markdownTable(rows)}\n`);
  if (!values.out) return;
  const heading = `Ingestion throughput through the library${values.uploaders === '1' ? '' : `, ${values.uploaders} uploaders`}`;
  const notes = [
    `${values.workers ?? DEFAULT_PIPELINE_CONCURRENCY} pipeline jobs at once, lexical only (embeddingModel none), ${values.uploaders} upload(s) at once`,
    `Shared 2-core machine; load average ${fixed(load, 1)} at the start`,
  ];
  await upsertSection(values.out, heading, section(heading, commandLine('bench/ingest/throughput.ts', process.argv.slice(2)), notes, markdownTable(rows)));
}

await main();
