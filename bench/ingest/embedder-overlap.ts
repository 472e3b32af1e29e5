/**
 * Issue 11's embedder figure: with an embedder that costs about 5 ms of CPU per chunk (a stand-in for a small ONNX
 * model; no weights can be downloaded here), does the rest of ingestion overlap embedding? Measures, in one run:
 *   1. the embedder alone: every chunk text of the corpus embedded in batches, chunks/s;
 *   2. end to end: the same corpus through `createDossier()` with that embedder as the collection's model, chunks/s;
 * and prints end-to-end ÷ alone (goal ≥ 90 %). The end-to-end clock starts once the library has started (a few documents
 * ingested into a collection of their own first, warm-up.mjs), as the embedder's own figure leaves out its start.
 *
 * The stand-in runs in one worker thread (as a single ONNX session would): per text it spins the CPU for the given
 * time, then returns a deterministic 384-wide vector of the text's hashed words, so search still works.
 *
 *   node --import tsx bench/ingest/embedder-overlap.ts [--limit-docs 1000] [--ms-per-chunk 5] [--uploaders 1] [--out bench/RESULTS.md]
 *
 * `--uploaders` uploads that many documents at once (a bulk import's way); with one, each upload waits for the last.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createDossier } from '@dossier/adapters';
import type { Embedder } from '@dossier/core';
import { DEFAULT_DATASET } from '../beir/args.ts';
import { readCorpus, toMarkdown } from '../beir/dataset.ts';
import { commandLine, fixed, markdownTable, type Row, section, upsertSection } from '../beir/report.ts';
import { warmUp } from './warm-up.mjs';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: DEFAULT_DATASET },
    'limit-docs': { type: 'string', default: '1000' },
    'ms-per-chunk': { type: 'string', default: '5' },
    uploaders: { type: 'string', default: '1' },
    out: { type: 'string' },
  },
});
const DIMENSION = 384;
const MODEL = 'bench:busy-384';

/** The worker: spin `ms` of CPU per text, then a hashed bag-of-words vector (unit length). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', ({ id, texts }) => {
  const vectors = texts.map((text) => {
    const until = performance.now() + workerData.ms;
    while (performance.now() < until);
    const v = new Float32Array(workerData.dimension);
    for (const word of text.toLowerCase().split(/\\W+/)) {
      if (!word) continue;
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
      v[(h >>> 0) % workerData.dimension] += 1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  });
  parentPort.postMessage({ id, vectors });
});
`;

/** The stand-in embedder on one worker thread. */
function busyEmbedder(msPerChunk: number): Embedder {
  const worker = new Worker(WORKER, { eval: true, workerData: { ms: msPerChunk, dimension: DIMENSION } });
  const waiting = new Map<number, (vectors: Float32Array[]) => void>();
  let next = 0;
  worker.on('message', ({ id, vectors }: { id: number; vectors: Float32Array[] }) => {
    waiting.get(id)?.(vectors);
    waiting.delete(id);
  });
  const embed = (texts: string[]) =>
    new Promise<Float32Array[]>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      worker.postMessage({ id, texts });
    });
  return {
    model: MODEL,
    dimension: DIMENSION,
    maxBatchSize: 32,
    embedDocuments: embed,
    embedQuery: async (text) => (await embed([text]))[0]!,
    close: async () => {
      await worker.terminate();
    },
  };
}

/** Embed every text through the embedder alone, in batches of its maxBatchSize; chunks/s. */
async function embedderAlone(texts: string[], msPerChunk: number): Promise<number> {
  const embedder = busyEmbedder(msPerChunk);
  const started = performance.now();
  for (let i = 0; i < texts.length; i += embedder.maxBatchSize) await embedder.embedDocuments(texts.slice(i, i + embedder.maxBatchSize));
  const seconds = (performance.now() - started) / 1000;
  await embedder.close();
  return texts.length / seconds;
}

/** Ingest the corpus end to end with the stand-in as the collection's model: chunks made and chunks/s. */
async function endToEnd(
  docs: { id: string; text: string }[],
  msPerChunk: number,
): Promise<{ chunks: number; chunksPerSecond: number; seconds: number; uploadSeconds: number; startSeconds: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'dossier-embed-overlap-'));
  const dossier = await createDossier({ dataDir: dir, embeddingModel: MODEL, allowModelDownload: false, embedders: [busyEmbedder(msPerChunk)] });
  try {
    const local = await dossier.local();
    const startSeconds = await warmUp(
      dossier,
      local,
      docs.map((d) => d.text),
      MODEL,
    );
    const collection = await local.collections.create({ name: 'overlap', embeddingModel: MODEL });
    const started = performance.now();
    let next = 0;
    const uploader = async () => {
      for (let d = docs[next++]; d; d = docs[next++])
        await local.documents.upload(collection.id, { filename: `${d.id}.md`, bytes: new TextEncoder().encode(d.text) });
    };
    await Promise.all(Array.from({ length: Number(values.uploaders) }, uploader));
    const uploadSeconds = (performance.now() - started) / 1000;
    await dossier.idle();
    const seconds = (performance.now() - started) / 1000;
    const { totalChunks: chunkCount } = await local.collections.stats(collection.id);
    return { chunks: chunkCount, chunksPerSecond: chunkCount / seconds, seconds, uploadSeconds, startSeconds };
  } finally {
    await dossier.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const msPerChunk = Number(values['ms-per-chunk']);
  const docs: { id: string; text: string }[] = [];
  for await (const d of readCorpus(values.dataset!, Number(values['limit-docs']))) docs.push({ id: d.id, text: toMarkdown(d) });
  const load = loadavg()[0]!;
  const e2e = await endToEnd(docs, msPerChunk);
  // The stand-in's cost is per text, so the corpus's own texts, as many as the pipeline made chunks, time it alone.
  const texts = Array.from({ length: e2e.chunks }, (_, i) => docs[i % docs.length]!.text);
  const alone = await embedderAlone(texts, msPerChunk);
  const rows: Row[] = [
    ['documents / chunks', `${docs.length} / ${e2e.chunks}`],
    ['embedder alone (chunks/s)', fixed(alone, 1)],
    ['uploads at once', values.uploaders!],
    ['library start: createDossier() to 8 warm-up documents ready (s)', fixed(e2e.startSeconds, 1)],
    ['end to end: uploads done / idle (s)', `${fixed(e2e.uploadSeconds, 1)} / ${fixed(e2e.seconds, 1)}`],
    ['end to end (chunks/s)', fixed(e2e.chunksPerSecond, 1)],
    ['end to end ÷ embedder alone', `${fixed((100 * e2e.chunksPerSecond) / alone, 0)} %`],
  ];
  const table = markdownTable(rows);
  process.stdout.write(`${table}\n`);
  if (!values.out) return;
  const heading = 'Ingestion with a 5 ms/chunk embedder — does the rest overlap embedding? (issue 11)';
  const notes = [
    `Stand-in embedder: one worker thread spinning ${msPerChunk} ms of CPU per chunk, batches of 32 (no model weights can be downloaded here)`,
    `Default pipeline settings (32 jobs at once); SciFact's first ${docs.length} abstracts; load average ${fixed(load, 1)} at the start`,
  ];
  await upsertSection(values.out, heading, section(heading, commandLine('bench/ingest/embedder-overlap.ts', process.argv.slice(2)), notes, table));
}

await main();
