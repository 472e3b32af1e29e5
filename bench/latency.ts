/**
 * Speed figures: pipeline ingestion of pre-converted Markdown into one collection, then query latency
 * through core's search service against a bare LanceDB query on the same table, interleaved query by query
 * in the same process; optionally a bulk part that loads chunks straight into the ChunkIndex (the 1M-chunk
 * scale) and times the adapter against bare LanceDB there. Prints a table; `--out` also writes it to a file.
 *
 *   node --import tsx bench/latency.ts [--chunks 100000] [--embedding-model none|fake-384] [--bulk-chunks 0]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { createDossier, createLanceChunkIndex, type LanceChunkIndex } from '@dossier/adapters';
import { type ChunkRow, DEFAULT_RETRIEVAL, type Embedder } from '@dossier/core';
import { DEFAULT_PIPELINE_CONCURRENCY, DEFAULT_RM3, rm3Weights, weightedQueryText } from '@dossier/core/internal';
import { percentile } from './beir/metrics.ts';
import { extraEmbedders } from './beir/pipeline.ts';
import { commandLine, fixed, interleaved, latencyRows, markdownTable, type Row, section, upsertSection } from './beir/report.ts';
import { sampleRss } from './beir/rss.ts';
import { dossierContext } from '@dossier/core/testing';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    'sections-per-doc': { type: 'string', default: '10' },
    queries: { type: 'string', default: '200' },
    'embedding-model': { type: 'string', default: 'none' },
    concurrency: { type: 'string', default: String(DEFAULT_PIPELINE_CONCURRENCY) },
    'bulk-chunks': { type: 'string', default: '0' },
    out: { type: 'string' },
  },
});
const model = values['embedding-model'] ?? 'none';

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

const ms = (label: string, samples: number[]): Row[] => latencyRows(label, samples);

/**
 * Bare LanceDB queries on a table: as a LanceDB user would first write them (`hybrid`, limit 10; `deep`, both
 * lists at the fusion depth of 50), and of the same shape as the service's (`shaped`): the `canonical = true`
 * prefilter, the columns the service reads (a hit's: not the vector, the indexed text or the filter attributes), the same depth (limit + 5
 * spare rows lexical-only, 50 per list with vectors, nprobes 20 and refine ×5 on the vector side) and, with
 * `rm3`, the feedback search, the expansion and the second search, so the ratio to it is the service's overhead.
 */
async function bareQueries(dir: string, table: string, embedder: Embedder | null) {
  const db = await lancedb.connect(dir);
  const t = await db.openTable(table);
  const notRead = new Set(['vector', 'text', 'tags', 'metadata_pairs', 'canonical']);
  const columns = (await t.schema()).fields.map((f) => f.name).filter((n) => !notRead.has(n));
  const fts = (q: string, k = 10) => t.query().fullTextSearch(q, { columns: 'text' }).limit(k).toArray();
  const vec = async (q: string, k = 10) =>
    t
      .query()
      .nearestTo(await embedder!.embedQuery(q))
      .distanceType('cosine')
      .limit(k)
      .toArray();
  const hybrid = embedder ? (q: string) => Promise.all([fts(q), vec(q)]) : fts;
  // Fusion needs a deeper pool than the answer (core takes 50 per list): the same two queries at that depth.
  const deep = embedder ? (q: string) => Promise.all([fts(q, 50), vec(q, 50)]) : null;
  const depth = embedder ? DEFAULT_RETRIEVAL.candidates : 10 + 5;
  const shapedFts = (q: string, k: number) =>
    t
      .query()
      .fullTextSearch(q, { columns: 'text' })
      .where('canonical = true')
      .select([...columns, '_score'])
      .limit(k)
      .toArray();
  const rm3 = async (q: string) => {
    const feedback = await shapedFts(q, Math.max(depth, DEFAULT_RM3.feedbackDocs));
    const top = feedback.slice(0, DEFAULT_RM3.feedbackDocs).map((r) => ({ text: `${r.section_title}\n${r.content}`, score: Number(r._score) }));
    return shapedFts(weightedQueryText(rm3Weights(q, top)) || q, depth);
  };
  const shapedVec = async (q: string) =>
    t
      .query()
      .nearestTo(await embedder!.embedQuery(q))
      .distanceType('cosine')
      .nprobes(20)
      .refineFactor(5)
      .where('canonical = true')
      .select([...columns, '_distance'])
      .limit(depth)
      .toArray();
  const shaped = (expansion: 'none' | 'rm3') => {
    const text = expansion === 'rm3' ? rm3 : (q: string) => shapedFts(q, depth);
    return embedder ? (q: string) => Promise.all([text(q), shapedVec(q)]) : text;
  };
  const close = () => {
    t.close();
    db.close();
  };
  return { hybrid, deep, shaped, close };
}

/** Two-level Markdown documents of `sections` sections, 300 words each (about two 512-token chunks). */
function markdownDocs(count: number, sections: number): Uint8Array[] {
  const gen = textGen(2);
  const enc = new TextEncoder();
  return Array.from({ length: count }, () => {
    const body = Array.from({ length: sections }, () => `## ${gen(3)}\n\n${gen(300)}\n`).join('\n');
    return enc.encode(`# ${gen(5)}\n\n${body}`);
  });
}

/** The embedder alone over the collection's chunk texts, in its own batch size: chunks per second. */
async function embedderThroughput(dir: string, table: string, embedder: Embedder): Promise<number> {
  const db = await lancedb.connect(dir);
  const t = await db.openTable(table);
  const rows = await t.query().select(['content', 'section_title']).toArray();
  t.close();
  db.close();
  const texts = rows.map((r) => (r.section_title ? `${r.section_title}\n${r.content}` : String(r.content)));
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += embedder.maxBatchSize) await embedder.embedDocuments(texts.slice(i, i + embedder.maxBatchSize));
  return texts.length / ((performance.now() - t0) / 1000);
}

async function pipeline(dataDir: string, target: number, queries: string[]): Promise<Row[]> {
  const embedder = extraEmbedders(model)[0] ?? null;
  const open = (concurrency = Number(values.concurrency)) =>
    createDossier({ dataDir, embeddingModel: model, embedders: embedder ? [embedder] : [], workers: { concurrency, pollMs: 20 } });
  const sections = Number(values['sections-per-doc']);
  const docs = markdownDocs(Math.ceil(target / (sections * 2)), sections);
  const rss = sampleRss();
  let dossier = await open();
  const col = await (await dossier.local()).collections.create({ name: 'latency' });
  const t0 = performance.now();
  for (let i = 0; i < docs.length; i += 200) {
    const scoped = await dossier.local();
    await Promise.all(docs.slice(i, i + 200).map((bytes, j) => scoped.documents.add(col.id, { filename: `d${i + j}.md`, bytes })));
  }
  await dossier.idle();
  const ingestS = (performance.now() - t0) / 1000;
  const index = dossierContext(dossier).index as LanceChunkIndex;
  const chunks = await index.countChunks(col.id);
  const t1 = performance.now();
  await index.optimize(col.id); // what background maintenance does once writes go quiet
  const settleS = (performance.now() - t1) / 1000;
  await dossier.close();
  // One library, as a user runs it: the default expansion's queries interleaved with the same-shape bare ones, then
  // the collection set to `none` and its queries interleaved with theirs. (Two libraries open on one data directory,
  // as this bench had, share the SQLite file between two connections and were not what a deployment runs.)
  dossier = await open(0);
  const scoped = await dossier.local();
  const lanceDir = join(dataDir, 'lancedb');
  const table = `chunks_${col.id.replaceAll('-', '')}`;
  const bare = await bareQueries(lanceDir, table, embedder);
  const query = (q: string) => scoped.search.query(col.id, { q });
  const lat = await interleaved(queries, { core: query, shaped: bare.shaped(DEFAULT_RETRIEVAL.queryExpansion ?? 'none') });
  await scoped.collections.update(col.id, { queryExpansion: 'none' });
  const latNone = await interleaved(queries, {
    coreNone: query,
    shapedNone: bare.shaped('none'),
    bare: bare.hybrid,
    ...(bare.deep ? { deep: bare.deep } : {}),
  });
  Object.assign(lat, latNone);
  bare.close();
  await dossier.close();
  const label = embedder ? `hybrid (${model})` : 'lexical';
  const expansion = DEFAULT_RETRIEVAL.queryExpansion ?? 'none';
  const ratio = (a: number[], b: number[], p: number) => fixed(percentile(a, p) / percentile(b, p), 2);
  const rows: Row[] = [
    ['documents', String(docs.length)],
    ['chunks', String(chunks)],
    ['ingest wall clock (s)', fixed(ingestS, 1)],
    ['ingest docs/s', fixed(docs.length / ingestS, 1)],
    ['ingest chunks/s', fixed(chunks / ingestS, 0)],
    ['index optimize after ingest (s)', fixed(settleS, 1)],
    ...ms(`search.query ${label}, default (${expansion}), limit 10`, lat.core!),
    ...ms(`bare LanceDB of the same shape (${expansion})`, lat.shaped!),
    [`search.query / same-shape bare (${expansion}), p50`, ratio(lat.core!, lat.shaped!, 50)],
    [`search.query / same-shape bare (${expansion}), p95`, ratio(lat.core!, lat.shaped!, 95)],
    ...ms(`search.query ${label}, queryExpansion none, limit 10`, lat.coreNone!),
    ...ms('bare LanceDB of the same shape (none)', lat.shapedNone!),
    ['search.query / same-shape bare (none), p50', ratio(lat.coreNone!, lat.shapedNone!, 50)],
    ['search.query / same-shape bare (none), p95', ratio(lat.coreNone!, lat.shapedNone!, 95)],
    ...ms(`bare LanceDB ${embedder ? 'FTS ∥ vector' : 'FTS'}, limit 10, as written by a user`, lat.bare!),
    ['search.query (none) / user-written bare limit 10, p50', ratio(lat.coreNone!, lat.bare!, 50)],
    ...(lat.deep
      ? [...ms('bare LanceDB FTS ∥ vector, 50 each', lat.deep), ['search.query (none) / bare 50 each, p50', ratio(lat.coreNone!, lat.deep, 50)] as Row]
      : []),
  ];
  if (embedder) {
    const own = await embedderThroughput(lanceDir, table, embedder);
    rows.push(['embedder alone (chunks/s)', fixed(own, 0)], ['ingestion / embedder throughput', fixed(chunks / ingestS / own, 3)]);
  }
  rows.push(['peak RSS (MiB)', fixed(rss.stop() / 2 ** 20, 0)]);
  return rows;
}

/** Loads chunks straight into the ChunkIndex in batches of 10,000, settles the indexes, then times queries. */
async function bulk(dir: string, n: number, queries: string[]): Promise<Row[]> {
  const rss = sampleRss();
  const embedder = extraEmbedders(model)[0] ?? null;
  const index = createLanceChunkIndex({ dir });
  const gen = textGen(1);
  await index.createCollection('bulk', embedder ? embedder.dimension : null);
  const t0 = performance.now();
  for (let i = 0; i < n; i += 10_000) {
    const rows: ChunkRow[] = Array.from({ length: Math.min(10_000, n - i) }, (_, j) => ({
      id: `c${i + j}`,
      documentId: `d${Math.floor((i + j) / 20)}`,
      sectionId: `s${Math.floor((i + j) / 2)}`,
      position: (i + j) % 2,
      content: gen(250),
      tokenCount: 500,
      sectionTitle: gen(3),
      sectionLevel: 2,
      vector: null,
      tags: [],
      metadataPairs: [],
      canonical: true,
    }));
    if (embedder) for (const r of rows) r.vector = (await embedder.embedDocuments([r.content]))[0]!;
    await index.upsertChunks('bulk', rows, { fresh: true });
  }
  const loadS = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await index.optimize('bulk');
  const settleS = (performance.now() - t1) / 1000;
  const bare = await bareQueries(dir, 'chunks_bulk', embedder);
  const adapter = async (q: string) => {
    const text = index.searchText('bulk', q, { limit: 10 });
    const vector = embedder ? index.searchVector('bulk', await embedder.embedQuery(q), { limit: 10 }) : null;
    return Promise.all([text, vector]);
  };
  const lat = await interleaved(queries, { adapter, bare: bare.hybrid });
  bare.close();
  await index.close();
  const label = embedder ? 'text ∥ vector' : 'text';
  return [
    ['bulk chunks', String(n)],
    ['bulk load (s)', fixed(loadS, 1)],
    ['bulk chunks/s', fixed(n / loadS, 0)],
    ['bulk index build + optimize (s)', fixed(settleS, 1)],
    ...ms(`bulk ChunkIndex ${label}, limit 10`, lat.adapter!),
    ...ms(`bulk bare LanceDB ${label}, limit 10`, lat.bare!),
    ['bulk adapter / bare, p50', fixed(percentile(lat.adapter!, 50) / percentile(lat.bare!, 50), 2)],
    ['bulk peak RSS (MiB)', fixed(rss.stop() / 2 ** 20, 0)],
  ];
}

const gen = textGen(3);
const queries = Array.from({ length: Number(values.queries) }, () => gen(6));
const dir = await mkdtemp(join(tmpdir(), 'dossier-latency-'));
try {
  const rows = [
    ...(Number(values.chunks) > 0 ? await pipeline(join(dir, 'pipeline'), Number(values.chunks), queries) : []),
    ...(Number(values['bulk-chunks']) > 0 ? await bulk(join(dir, 'bulk'), Number(values['bulk-chunks']), queries) : []),
  ];
  const table = markdownTable(rows);
  process.stdout.write(`\n${table}\n`);
  if (values.out) {
    const heading = `Speed — ${model}, ${values.chunks} pipeline chunks, ${values['bulk-chunks']} bulk chunks`;
    const notes = [`Pipeline workers: ${values.concurrency}; ${values['sections-per-doc']} sections of 300 words per document`];
    await upsertSection(values.out, heading, section(heading, commandLine('bench/latency.ts', process.argv.slice(2)), notes, table));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
