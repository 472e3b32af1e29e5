import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier, type Dossier } from '@dossier/adapters';
import { DEFAULT_RETRIEVAL, type Embedder, type ScopedDossier } from '@dossier/core';
import { FeatureHashingEmbedder } from '@dossier/core/feature-hashing';
import type { BenchArgs } from './args.ts';
import { type BeirDoc, batches, readCorpus, toMarkdown } from './dataset.ts';

/** A Dossier in a fresh temporary data directory, with one collection to benchmark. */
export interface BenchDossier {
  dossier: Dossier;
  scoped: ScopedDossier;
  collectionId: string;
  dataDir: string;
  /** Dossier document id → BEIR document id. */
  beirIds: Map<string, string>;
  /** Stop the workers and release the data directory (idempotent). */
  close(): Promise<void>;
  /** Close, then remove the data directory unless `--keep`. */
  dispose(): Promise<void>;
}

/**
 * `fake-<dimension>` selects the feature-hashing embedder under that id (throughput of the hybrid path, not quality).
 */
export function extraEmbedders(model: string): Embedder[] {
  const match = /^fake-(\d+)$/.exec(model);
  if (!match) return [];
  return [new FeatureHashingEmbedder({ dimension: Number(match[1]), model })];
}

/** Start Dossier on a new temp dir and create the collection; `dispose` closes it and removes the dir unless kept. */
export async function openBenchDossier(args: BenchArgs): Promise<BenchDossier> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dossier-beir-'));
  const dossier = await createDossier({
    dataDir,
    embeddingModel: args.embeddingModel,
    embedders: extraEmbedders(args.embeddingModel),
    workers: { concurrency: args.concurrency, pollMs: 50 },
    retrieval: { ...DEFAULT_RETRIEVAL, queryExpansion: args.queryExpansion, resultLimit: args.hits },
  });
  const scoped = await dossier.local();
  const col = await scoped.collections.create({ name: 'beir', chunkSize: args.chunkSize, chunkOverlap: args.chunkOverlap });
  if (col.embeddingModel !== args.embeddingModel) {
    throw new Error(`collection embeddingModel is ${col.embeddingModel}, asked for ${args.embeddingModel} (model unavailable?)`);
  }
  let closed: Promise<void> | null = null;
  const close = () => (closed ??= dossier.close());
  return {
    dossier,
    scoped,
    collectionId: col.id,
    dataDir,
    beirIds: new Map(),
    close,
    async dispose() {
      await close();
      if (args.keep) process.stderr.write(`data kept in ${dataDir}\n`);
      else await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Upload one batch of records concurrently; records the id mapping. */
async function addBatch(b: BenchDossier, docs: BeirDoc[]): Promise<void> {
  const encoder = new TextEncoder();
  const views = await Promise.all(
    docs.map((d) => b.scoped.documents.add(b.collectionId, { filename: `${d.id}.md`, bytes: encoder.encode(toMarkdown(d)), metadata: { beirId: d.id } })),
  );
  for (const [i, v] of views.entries()) b.beirIds.set(v.id, docs[i]!.id);
}

/**
 * Ingest the corpus in batches through the library API; unless `allAtOnce`, wait for the pipeline to drain
 * after each batch, so the backlog (and the index's unoptimized tail) stays bounded.
 */
export async function ingestCorpus(b: BenchDossier, args: BenchArgs, onProgress: (added: number, seconds: number) => void): Promise<{ seconds: number }> {
  const started = performance.now();
  for await (const batch of batches(readCorpus(args.dataset, args.limitDocs), args.batchSize)) {
    await addBatch(b, batch);
    if (!args.allAtOnce) await b.dossier.idle();
    onProgress(b.beirIds.size, (performance.now() - started) / 1000);
  }
  const ticker = setInterval(() => void reportProgress(b, started), 30_000);
  try {
    await b.dossier.idle();
  } finally {
    clearInterval(ticker);
  }
  return { seconds: (performance.now() - started) / 1000 };
}

/** One stderr line with the elapsed time and the documents per status, while waiting for the pipeline. */
async function reportProgress(b: BenchDossier, started: number): Promise<void> {
  const { statusCounts } = await b.scoped.collections.stats(b.collectionId).catch(() => ({ statusCounts: {} }));
  process.stderr.write(`  ${((performance.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(statusCounts)}\n`);
}

/** Status counts, chunk total and the distinct error messages of the collection. */
export async function ingestOutcome(b: BenchDossier) {
  const stats = await b.scoped.collections.stats(b.collectionId);
  const errors = new Map<string, number>();
  for (let offset = 0; ; offset += 500) {
    const page = await b.scoped.documents.list(b.collectionId, { status: 'error', limit: 500, offset });
    for (const d of page.documents) errors.set(d.errorMessage ?? '(no message)', (errors.get(d.errorMessage ?? '(no message)') ?? 0) + 1);
    if (page.documents.length < 500) break;
  }
  return { docs: stats.docCount, chunks: stats.totalChunks, indexBytes: stats.dbBytes, statusCounts: stats.statusCounts, errors };
}
