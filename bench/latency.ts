/**
 * Speed figures (prints only): bulk ChunkIndex upserts of synthetic chunks, pipeline ingestion of
 * pre-converted Markdown, and lexical (or hybrid, with a fake-<dim> model) query latency through core's
 * search service against a bare LanceDB query on the same table in the same run.
 *
 *   node --import tsx bench/latency.ts [--chunks 100000] [--docs 2000] [--queries 200] [--embedding-model none|fake-384]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { createDossier, createLanceChunkIndex } from '@dossier/adapters';
import type { ChunkRow } from '@dossier/core';
import { percentile } from './beir/metrics.ts';
import { extraEmbedders } from './beir/pipeline.ts';
import { fixed, markdownTable, type Row } from './beir/report.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    docs: { type: 'string', default: '2000' },
    queries: { type: 'string', default: '200' },
    'embedding-model': { type: 'string', default: 'none' },
    concurrency: { type: 'string', default: '8' },
  },
});

/** Deterministic pseudo-random words with a Zipf-like distribution over a 20k vocabulary. */
function textGen(seed: number) {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const word = () => `w${Math.floor(20_000 ** rnd()).toString(36)}`;
  return (n: number) => Array.from({ length: n }, word).join(' ');
}

const ms = (label: string, xs: number[]): Row[] => [50, 95, 99].map((p) => [`${label} p${p} (ms)`, fixed(percentile(xs, p), 1)] as Row);

async function timed<T>(xs: number[], fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  xs.push(performance.now() - t0);
  return out;
}

/** Bulk upserts straight into the ChunkIndex, then adapter vs bare LanceDB text queries on that table. */
async function bulk(dir: string, n: number, queries: string[]): Promise<Row[]> {
  const index = createLanceChunkIndex({ dir });
  const gen = textGen(1);
  await index.createCollection('bulk', null);
  const t0 = performance.now();
  for (let i = 0; i < n; i += 5000) {
    const rows: ChunkRow[] = Array.from({ length: Math.min(5000, n - i) }, (_, j) => ({
      id: `c${i + j}`, documentId: `d${Math.floor((i + j) / 10)}`, sectionId: `s${Math.floor((i + j) / 5)}`, position: (i + j) % 10,
      content: gen(120), tokenCount: 120, sectionTitle: gen(4), vector: null, tags: [], metadataPairs: [], canonical: true,
    }));
    await index.upsertChunks('bulk', rows);
  }
  await index.refresh('bulk');
  const upsertS = (performance.now() - t0) / 1000;
  const adapter: number[] = [];
  for (const q of queries) await timed(adapter, () => index.searchText('bulk', q, { limit: 10 }));
  await index.close();
  const db = await lancedb.connect(dir);
  const table = await db.openTable('chunks_bulk');
  const bare: number[] = [];
  for (const q of queries) await timed(bare, () => table.query().fullTextSearch(q, { columns: 'text' }).limit(10).toArray());
  table.close();
  db.close();
  return [
    ['bulk chunks', String(n)], ['bulk upsert + index (s)', fixed(upsertS, 1)], ['bulk chunks/s', fixed(n / upsertS, 0)],
    ...ms('bulk ChunkIndex.searchText', adapter), ...ms('bulk bare LanceDB FTS', bare),
    ['bulk adapter/bare p50 ratio', fixed(percentile(adapter, 50) / percentile(bare, 50), 2)],
  ];
}

/** Pipeline ingestion of Markdown documents, then search.query vs a bare query on the collection's chunk table. */
async function pipeline(dataDir: string, docs: number, queries: string[], model: string): Promise<Row[]> {
  const dossier = await createDossier({ dataDir, embeddingModel: model, embedders: extraEmbedders(model), workers: { concurrency: Number(values.concurrency), pollMs: 20 } });
  const scoped = await dossier.local();
  const col = await scoped.collections.create({ name: 'latency' });
  const gen = textGen(2);
  const enc = new TextEncoder();
  const t0 = performance.now();
  for (let i = 0; i < docs; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, docs - i) }, (_, j) =>
      scoped.documents.add(col.id, { filename: `d${i + j}.md`, bytes: enc.encode(`# ${gen(5)}\n\n${gen(300)}\n\n## ${gen(3)}\n\n${gen(300)}\n`) })));
    await dossier.idle();
  }
  const ingestS = (performance.now() - t0) / 1000;
  const chunks = await dossier.context.index.countChunks(col.id);
  const core: number[] = [];
  for (const q of queries) await timed(core, () => scoped.search.query(col.id, { q }));
  await dossier.close();
  const db = await lancedb.connect(join(dataDir, 'lancedb'));
  const table = await db.openTable(`chunks_${col.id.replaceAll('-', '')}`);
  const bare: number[] = [];
  for (const q of queries) await timed(bare, () => table.query().fullTextSearch(q, { columns: 'text' }).limit(20).toArray());
  table.close();
  db.close();
  const label = model === 'none' ? 'lexical' : `hybrid (${model})`;
  return [
    ['pipeline documents', String(docs)], ['pipeline chunks', String(chunks)], ['pipeline ingest (s)', fixed(ingestS, 1)],
    ['pipeline docs/s', fixed(docs / ingestS, 1)], ['pipeline chunks/s', fixed(chunks / ingestS, 1)],
    ...ms(`search.query ${label} limit 10`, core), ...ms('bare LanceDB FTS limit 20', bare),
    [`search.query/bare p50 ratio`, fixed(percentile(core, 50) / percentile(bare, 50), 2)],
  ];
}

const gen = textGen(3);
const queries = Array.from({ length: Number(values.queries) }, () => gen(6));
const dir = await mkdtemp(join(tmpdir(), 'dossier-latency-'));
try {
  const rows = [
    ...(Number(values.chunks) > 0 ? await bulk(join(dir, 'bulk'), Number(values.chunks), queries) : []),
    ...(Number(values.docs) > 0 ? await pipeline(join(dir, 'pipeline'), Number(values.docs), queries, values['embedding-model'] ?? 'none') : []),
  ];
  process.stdout.write(`\n${markdownTable(rows)}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
