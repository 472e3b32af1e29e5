/**
 * Query-side experiments without re-ingesting: opens a data directory kept by `run.ts --keep` (no
 * workers), runs the test queries of its only collection with the given retrieval settings, and prints
 * nDCG@10, recall@100, MRR@10 and latency. Prints only; RESULTS.md is written by full `run.ts` runs.
 *
 *   node --import tsx bench/beir/requery.ts --data-dir /tmp/dossier-beir-XXXX [--query-expansion rm3]
 *        [--limit-queries N] [--hits N] [--embedding-model M] [--rrf-k N] [--lexical-weight W] [--vector-weight W]
 */
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { DEFAULT_RETRIEVAL, QUERY_EXPANSIONS, type QueryExpansion } from '@dossier/core';
import { DEFAULT_DATASET } from './args.ts';
import { readTestQueries } from './dataset.ts';
import { evaluate, percentile, rankDocuments } from './metrics.ts';
import { extraEmbedders } from './pipeline.ts';
import { fixed, markdownTable, metricRows } from './report.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    dataset: { type: 'string', default: DEFAULT_DATASET },
    'query-expansion': { type: 'string', default: 'none' },
    'limit-queries': { type: 'string' },
    hits: { type: 'string', default: '200' },
    'embedding-model': { type: 'string', default: 'none' },
    'rrf-k': { type: 'string' },
    'lexical-weight': { type: 'string' },
    'vector-weight': { type: 'string' },
  },
});
const dataDir = values['data-dir'];
if (!dataDir) throw new Error('--data-dir is required (a directory kept by run.ts --keep)');
const expansion = values['query-expansion'] as QueryExpansion;
if (!QUERY_EXPANSIONS.includes(expansion)) throw new Error(`--query-expansion must be one of ${QUERY_EXPANSIONS.join(', ')}`);
const num = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Number(v));

const model = values['embedding-model'] ?? 'none';
const dossier = await createDossier({
  dataDir,
  embeddingModel: model,
  embedders: extraEmbedders(model),
  workers: { concurrency: 0 },
  retrieval: {
    ...DEFAULT_RETRIEVAL,
    queryExpansion: expansion,
    resultLimit: Number(values.hits),
    rrfK: num(values['rrf-k'], DEFAULT_RETRIEVAL.rrfK),
    lexicalWeight: num(values['lexical-weight'], DEFAULT_RETRIEVAL.lexicalWeight),
    vectorWeight: num(values['vector-weight'], DEFAULT_RETRIEVAL.vectorWeight),
  },
});
try {
  const scoped = await dossier.local();
  const [col, ...more] = await scoped.collections.list();
  if (!col || more.length) throw new Error(`expected exactly one collection in ${dataDir}`);
  const { queries, qrels } = await readTestQueries(values.dataset ?? DEFAULT_DATASET, num(values['limit-queries'], Number.POSITIVE_INFINITY));
  const rankings = new Map<string, string[]>();
  const ms: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const { results } = await scoped.search.query(col.id, { q: q.text, limit: 50 });
    ms.push(performance.now() - t0);
    rankings.set(
      q.id,
      rankDocuments(
        results.map((h) => ({ docId: h.document.filename.replace(/\.md$/, ''), score: h.score })),
        q.id,
      ),
    );
  }
  const rows = [...metricRows(evaluate(rankings, qrels)), ...[50, 95, 99].map((p) => [`query p${p} (ms)`, fixed(percentile(ms, p), 1)] as [string, string])];
  process.stdout.write(`query expansion ${expansion}\n${markdownTable(rows)}\n`);
} finally {
  await dossier.close();
}
