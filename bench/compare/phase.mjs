// One engine, one phase, in its own process, as a user's application runs it: plain node, no TypeScript loader (tsx
// alone adds ~43 MiB to a process and a hooks thread), Dossier from an installed copy of the built packages. Prints
// one JSON line; run.ts prepares the inputs and scores the hits (nDCG@10, percentiles).
// Usage (run by bench/compare/run.ts):
//   phase.mjs dossier build <corpus.jsonl> <dir> <modules>        add the corpus (README pattern: add, idle), close
//   phase.mjs dossier query <queries.json> <dir> <modules> <collection> <rm3|none>
//                                                                  reopen, run the queries, optimize, run them again
//   phase.mjs minisearch|orama build <corpus.jsonl> <dir> <queries.json>
//                                                                  index the corpus, save it to <dir>, run the queries
// <corpus.jsonl>: one {id, title, text, markdown} a line; <queries.json>: [{id, text}]; <modules>: the node_modules
// folder holding the installed @dossier packages.
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createMiniSearch, createOrama } from './in-memory.mjs';

/** Results per query, as a user asks for them; nDCG@10 is computed over them. */
const LIMIT = 10;
/** Documents added at once, as an application reading a folder would. */
const BATCH = 100;

/** Peak resident set size, sampled every 100 ms until stopped. */
function sampleRss() {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 100);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage.rss()) / 2 ** 20;
  };
}

/** CPU milliseconds of this process (every thread) since `since`: a figure a busy machine disturbs less than wall time. */
const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function* corpusLines(file) {
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line.trim()) yield JSON.parse(line);
  }
}

/** Every query once, in order: each one's hits and its latency. */
async function runQueries(queries, search) {
  const hits = {};
  const ms = [];
  for (const query of queries) {
    const started = performance.now();
    hits[query.id] = await search(query.text);
    ms.push(performance.now() - started);
  }
  return { hits, ms };
}

async function dossierBuild(corpus, dir, modules) {
  const stopRss = sampleRss();
  const { createDossier } = await import(join(modules, '@dossier/adapters/dist/index.js'));
  const dossier = await createDossier({ dataDir: dir, embeddingModel: 'none' });
  const local = await dossier.local();
  const collection = await local.collections.create({ name: 'scifact' });
  const encoder = new TextEncoder();
  const started = performance.now();
  const cpu = process.cpuUsage();
  let docs = 0;
  let batch = [];
  const add = (d) => local.documents.add(collection.id, { filename: `${d.id}.md`, bytes: encoder.encode(d.markdown) });
  for await (const d of corpusLines(corpus)) {
    batch.push(d);
    if (batch.length < BATCH) continue;
    await Promise.all(batch.map(add));
    docs += batch.length;
    batch = [];
  }
  await Promise.all(batch.map(add));
  docs += batch.length;
  await dossier.idle();
  const seconds = (performance.now() - started) / 1000;
  const cpuMsPerDoc = cpuMs(cpu) / docs;
  await dossier.close();
  return { collectionId: collection.id, docs, docsPerSecond: docs / seconds, cpuMsPerDoc, peakRssMiB: stopRss() };
}

async function dossierQuery(queriesFile, dir, modules, collectionId, expansion) {
  const queries = JSON.parse(await readFile(queriesFile, 'utf8'));
  const { createDossier } = await import(join(modules, '@dossier/adapters/dist/index.js'));
  const { DEFAULT_RETRIEVAL } = await import(join(modules, '@dossier/core/dist/index.js'));
  const { dossierContext } = await import(join(modules, '@dossier/core/dist/testing/index.js'));
  const retrieval = { ...DEFAULT_RETRIEVAL, queryExpansion: expansion };
  const dossier = await createDossier({ dataDir: dir, embeddingModel: 'none', workers: { concurrency: 0 }, retrieval });
  try {
    const local = await dossier.local();
    const search = async (q) =>
      (await local.search.query(collectionId, { q, limit: LIMIT })).results.map((h) => ({ docId: h.document.filename.replace(/\.md$/, ''), score: h.score }));
    const asLeft = await runQueries(queries, search);
    await dossierContext(dossier).index.optimize?.(collectionId);
    const optimized = await runQueries(queries, search);
    return { asLeft, optimized };
  } finally {
    await dossier.close();
  }
}

/** Indexes the corpus in memory (timed), saves it for the cold start (not timed), runs the queries. */
async function inMemoryBuild(engine, corpus, dir, queriesFile) {
  const stopRss = sampleRss();
  const index = engine === 'minisearch' ? await createMiniSearch() : await createOrama();
  const docs = [];
  for await (const d of corpusLines(corpus)) docs.push({ id: d.id, title: d.title, text: d.text });
  const started = performance.now();
  const cpu = process.cpuUsage();
  await index.addAll(docs);
  const seconds = (performance.now() - started) / 1000;
  const cpuMsPerDoc = cpuMs(cpu) / docs.length;
  await writeFile(join(dir, `${engine}.json`), await index.save());
  const queries = JSON.parse(await readFile(queriesFile, 'utf8'));
  const run = await runQueries(queries, (q) => index.search(q, LIMIT));
  return { docs: docs.length, docsPerSecond: docs.length / seconds, cpuMsPerDoc, peakRssMiB: stopRss(), run };
}

const [engine, phase, input, dir, ...rest] = process.argv.slice(2);
if (!engine || !phase || !input || !dir) throw new Error('usage: phase.mjs <dossier|minisearch|orama> <build|query> <input> <dir> [...]');
const result =
  engine === 'dossier'
    ? phase === 'build'
      ? await dossierBuild(input, dir, rest[0])
      : await dossierQuery(input, dir, rest[0], rest[1], rest[2] ?? 'rm3')
    : await inMemoryBuild(engine, input, dir, rest[0]);
process.stdout.write(`${JSON.stringify(result)}\n`);
