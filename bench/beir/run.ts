/**
 * BEIR benchmark of the whole Dossier pipeline: ingest a BEIR corpus through the library API into a fresh
 * data directory, run every test query through the real query path, and print quality, throughput,
 * latency and memory figures. Usage: see bench/README.md.
 */
import { basename, relative } from 'node:path';
import { createDossier } from '@dossier/adapters';
import { DEFAULT_RETRIEVAL, type QueryHit } from '@dossier/core';
import { type BenchArgs, parseBenchArgs, REPO_ROOT } from './args.ts';
import { readTestQueries } from './dataset.ts';
import { evaluate, type PassageHit, percentile, rankDocuments } from './metrics.ts';
import { type BenchDossier, extraEmbedders, ingestCorpus, ingestOutcome, openBenchDossier } from './pipeline.ts';
import { commandLine, fixed, metricRows, markdownTable, mib, type Row, section, upsertSection } from './report.ts';
import { sampleRss } from './rss.ts';

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** BEIR id of a hit: from the upload map, else from the `<id>.md` filename. */
function beirIdOf(b: BenchDossier, hit: QueryHit): string {
  return b.beirIds.get(hit.document.id) ?? hit.document.filename.replace(/\.md$/, '');
}

/** Every test query in order, one at a time, timed; returns document rankings and latencies. */
async function runQueries(b: BenchDossier, queries: { id: string; text: string }[]) {
  const rankings = new Map<string, string[]>();
  const latencies: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const { results } = await b.scoped.search.query(b.collectionId, { q: q.text, limit: 50 });
    latencies.push(performance.now() - t0);
    const hits: PassageHit[] = results.map((h) => ({ docId: beirIdOf(b, h), score: h.score }));
    rankings.set(q.id, rankDocuments(hits, q.id));
  }
  return { rankings, latencies };
}

/**
 * Latency as an API client sees it (the public default, limit 10, no internal result limit): a second
 * Dossier on the same data directory, without workers.
 */
async function publicLatency(args: BenchArgs, dataDir: string, collectionId: string, queries: { text: string }[]): Promise<number[]> {
  const dossier = await createDossier({
    dataDir,
    embeddingModel: args.embeddingModel,
    embedders: extraEmbedders(args.embeddingModel),
    workers: { concurrency: 0 },
    retrieval: { ...DEFAULT_RETRIEVAL, queryExpansion: args.queryExpansion },
  });
  try {
    const scoped = await dossier.local();
    const out: number[] = [];
    for (const q of queries) {
      const t0 = performance.now();
      await scoped.search.query(collectionId, { q: q.text });
      out.push(performance.now() - t0);
    }
    return out;
  } finally {
    await dossier.close();
  }
}

const latencyRows = (label: string, ms: number[]): Row[] => [50, 95, 99].map((p) => [`${label} p${p} (ms)`, fixed(percentile(ms, p), 1)] as Row);

/** The figures of one run, as table rows. */
async function measure(args: BenchArgs, b: BenchDossier, rss: ReturnType<typeof sampleRss>) {
  const { queries, qrels, missingText } = await readTestQueries(args.dataset, args.limitQueries);
  if (missingText.length) log(`warning: ${missingText.length} judged queries have no text in queries.jsonl`);
  log(`ingesting ${args.dataset} into ${b.dataDir} (collection ${b.collectionId})`);
  const { seconds } = await ingestCorpus(b, args, (n, s) => log(`  ${s.toFixed(0)} s: ${n} documents added${args.allAtOnce ? '' : ' and processed'}`));
  const outcome = await ingestOutcome(b);
  log(`pipeline idle after ${seconds.toFixed(1)} s: ${JSON.stringify(outcome.statusCounts)}`);
  for (const [msg, n] of outcome.errors) log(`  error × ${n}: ${msg}`);
  const { rankings, latencies } = await runQueries(b, queries);
  await b.close();
  const publicMs = await publicLatency(args, b.dataDir, b.collectionId, queries);
  const rows: Row[] = [
    ...metricRows(evaluate(rankings, qrels)),
    ['documents added', String(b.beirIds.size)],
    ['documents ready', String(outcome.statusCounts.ready ?? 0)],
    ['documents in error', String(outcome.statusCounts.error ?? 0)],
    ['chunks', String(outcome.chunks)],
    ['index size', mib(outcome.indexBytes)],
    ['ingest wall clock (s)', fixed(seconds, 1)],
    ['ingest docs/s', fixed(b.beirIds.size / seconds, 1)],
    ['ingest chunks/s', fixed(outcome.chunks / seconds, 1)],
    ...latencyRows(`query ${args.hits} hits`, latencies),
    ...latencyRows('query limit 10', publicMs),
    ['peak RSS', mib(rss.stop())],
  ];
  const short = [...rankings.values()].filter((r) => r.length < 100).length;
  return { rows, short, queries: queries.length };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const args = parseBenchArgs(argv);
  const rss = sampleRss(100);
  const b = await openBenchDossier(args);
  try {
    const { rows, short, queries } = await measure(args, b, rss);
    process.stdout.write(`\n${markdownTable(rows)}\n`);
    if (short) log(`note: ${short} of ${queries} queries ranked fewer than 100 documents from ${args.hits} hits (raise --hits)`);
    const full = args.limitDocs === Number.POSITIVE_INFINITY && args.limitQueries === Number.POSITIVE_INFINITY;
    const out = args.out ?? (full ? `${REPO_ROOT}/bench/RESULTS.md` : null);
    if (!out) return;
    const expansion = args.queryExpansion === 'none' ? '' : `, query expansion ${args.queryExpansion}`;
    const heading = `${basename(args.dataset)} — Dossier pipeline (embedding ${args.embeddingModel}, chunks ${args.chunkSize}/${args.chunkOverlap}${expansion})`;
    const notes = [
      `Dataset: \`${relative(REPO_ROOT, args.dataset)}\`${full ? '' : ` (subset: ${b.beirIds.size} docs, ${queries} queries)`}`,
      `Pipeline workers: ${args.concurrency}; uploads in batches of ${args.batchSize}; documents ranked by their best chunk among ${args.hits} chunk hits per query`,
      ...(short ? [`${short} queries ranked fewer than 100 documents`] : []),
    ];
    await upsertSection(out, heading, section(heading, commandLine('bench/beir/run.ts', argv), notes, markdownTable(rows)));
    log(`wrote ${relative(REPO_ROOT, out)}`);
  } finally {
    await b.dispose();
  }
}

await main();
