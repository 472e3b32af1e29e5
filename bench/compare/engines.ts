/**
 * One engine, one phase, in its own process (so peak RSS and a cold start are its own): prints one JSON line.
 * Run by bench/compare/run.ts:
 *   engines.ts dossier build <dataset> <dir>          add the corpus (README pattern: add, idle), close
 *   engines.ts dossier query <dataset> <dir> <col> <rm3|none>   reopen, run the test queries, optimize, run them again
 *   engines.ts minisearch|orama build <dataset> <dir>  index the corpus, save it to <dir>, run the test queries
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';
import { DEFAULT_RETRIEVAL, type QueryExpansion } from '@dossier/core';
import { dossierContext } from '@dossier/core/testing';
import { type BeirDoc, batches, readCorpus, readTestQueries, toMarkdown } from '../beir/dataset.ts';
import { evaluate, percentile, rankDocuments } from '../beir/metrics.ts';
import { sampleRss } from '../beir/rss.ts';
import { createMiniSearch, createOrama, type InMemoryEngine } from './in-memory.mjs';

/** Results per query, as a user asks for them; nDCG@10 is computed over them. */
export const LIMIT = 10;

type Queries = Awaited<ReturnType<typeof readTestQueries>>;

/** Runs every query once, in order; nDCG@10 and latency percentiles. */
async function runQueries(set: Queries, search: (text: string) => Promise<{ docId: string; score: number }[]>) {
  const rankings = new Map<string, string[]>();
  const ms: number[] = [];
  for (const q of set.queries) {
    const t0 = performance.now();
    const hits = await search(q.text);
    ms.push(performance.now() - t0);
    rankings.set(q.id, rankDocuments(hits, q.id));
  }
  return { ndcg10: evaluate(rankings, set.qrels).ndcg10, p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

async function dossierBuild(dataset: string, dir: string) {
  const rss = sampleRss();
  const dossier = await createDossier({ dataDir: dir, embeddingModel: 'none' });
  const local = await dossier.local();
  const collection = await local.collections.create({ name: 'scifact' });
  const encoder = new TextEncoder();
  const started = performance.now();
  let docs = 0;
  for await (const batch of batches(readCorpus(dataset), 100)) {
    await Promise.all(batch.map((d) => local.documents.add(collection.id, { filename: `${d.id}.md`, bytes: encoder.encode(toMarkdown(d)) })));
    docs += batch.length;
  }
  await dossier.idle();
  const seconds = (performance.now() - started) / 1000;
  await dossier.close();
  return { collectionId: collection.id, docs, docsPerSecond: docs / seconds, peakRssMiB: rss.stop() / 2 ** 20 };
}

async function dossierQuery(dataset: string, dir: string, collectionId: string, expansion: QueryExpansion) {
  const set = await readTestQueries(dataset);
  const dossier = await createDossier({
    dataDir: dir,
    embeddingModel: 'none',
    workers: { concurrency: 0 },
    retrieval: { ...DEFAULT_RETRIEVAL, queryExpansion: expansion },
  });
  try {
    const local = await dossier.local();
    const search = async (q: string) =>
      (await local.search.query(collectionId, { q, limit: LIMIT })).results.map((h) => ({ docId: h.document.filename.replace(/\.md$/, ''), score: h.score }));
    const asLeft = await runQueries(set, search);
    const index = dossierContext(dossier).index as { optimize?: (id: string) => Promise<void> };
    await index.optimize?.(collectionId);
    const optimized = await runQueries(set, search);
    return { ...asLeft, optimizedP50: optimized.p50, optimizedP95: optimized.p95 };
  } finally {
    await dossier.close();
  }
}

/** Indexes the corpus in memory (timed), saves it to `file` for the cold start (not timed), runs the queries. */
async function inMemoryBuild(engine: InMemoryEngine, dataset: string, file: string) {
  const rss = sampleRss();
  const docs: BeirDoc[] = [];
  for await (const d of readCorpus(dataset)) docs.push(d);
  const started = performance.now();
  await engine.addAll(docs);
  const seconds = (performance.now() - started) / 1000;
  await writeFile(file, await engine.save());
  const set = await readTestQueries(dataset);
  const queries = await runQueries(set, async (q) => engine.search(q, LIMIT));
  return { docs: docs.length, docsPerSecond: docs.length / seconds, peakRssMiB: rss.stop() / 2 ** 20, ...queries };
}

const [engine, phase, dataset, dir, ...rest] = process.argv.slice(2);
if (!engine || !phase || !dataset || !dir) throw new Error('usage: engines.ts <dossier|minisearch|orama> <build|query> <dataset> <dir> [...]');
const result =
  engine === 'dossier'
    ? phase === 'build'
      ? await dossierBuild(dataset, dir)
      : await dossierQuery(dataset, dir, rest[0]!, (rest[1] ?? 'rm3') as QueryExpansion)
    : await inMemoryBuild(engine === 'minisearch' ? await createMiniSearch() : await createOrama(), dataset, join(dir, `${engine}.json`));
process.stdout.write(`${JSON.stringify(result)}\n`);
