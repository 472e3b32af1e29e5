/**
 * The Dossier build phase of bench/compare/phase.mjs alone (under tsx, from the sources), with CPU time and peak RSS
 * from the process's own counters (the machine is shared: wall time alone says little), and a hash of every chunk text and section row, so a change to the
 * ingest path can be checked to produce the same index. Usage:
 *   node --import tsx bench/compare/profile-build.ts [dataset] [--docs N] [--sql] [--conversion-threads N] [--uploads N]
 *     [--workers N] [--keep]
 * --uploads and --workers set how many direct uploads are stored at once and how many pipeline jobs run at once.
 * --sql counts and times every SQLite statement (better-sqlite3 patched in this process only); --keep leaves the data
 * directory for profile-query.ts. RSS is printed as the corpus is added, once the pipeline has drained, and after idle().
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { dossierContext } from '@dossier/core/testing';
import { DEFAULT_DATASET } from '../beir/args.ts';
import { batches, readCorpus, toMarkdown } from '../beir/dataset.ts';
import { sampleRss } from '../beir/rss.ts';
import { countStatements } from './sql-counter.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    docs: { type: 'string' },
    'conversion-threads': { type: 'string' },
    uploads: { type: 'string' },
    workers: { type: 'string' },
    sql: { type: 'boolean' },
    keep: { type: 'boolean' },
  },
});
const dataset = resolve(positionals[0] ?? DEFAULT_DATASET);
const sql = values.sql ? countStatements() : null;
const dir = await mkdtemp(join(tmpdir(), 'dossier-profile-'));
const rss = sampleRss();
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
let started = performance.now();
const memory = (phase: string) => {
  const at = ((performance.now() - started) / 1000).toFixed(2);
  process.stderr.write(`${phase} at ${at} s: rss ${mib(process.memoryUsage.rss())} MiB, peak so far ${mib(rss.peak())} MiB\n`);
};
const cpu0 = process.cpuUsage();
const conversion = values['conversion-threads'] ? { maxThreads: Number(values['conversion-threads']) } : undefined;
const uploads = values.uploads ? { concurrency: Number(values.uploads) } : undefined;
const workers = values.workers ? { concurrency: Number(values.workers) } : undefined;
const dossier = await createDossier({ dataDir: dir, embeddingModel: 'none', conversion, uploads, workers });
const ctx = dossierContext(dossier);
const local = await dossier.local();
const collection = await local.collections.create({ name: 'scifact' });
const encoder = new TextEncoder();
started = performance.now();
let docs = 0;
for await (const batch of batches(readCorpus(dataset, Number(values.docs ?? Number.POSITIVE_INFINITY)), 100)) {
  await Promise.all(batch.map((d) => local.documents.add(collection.id, { filename: `${d.id}.md`, bytes: encoder.encode(toMarkdown(d)) })));
  docs += batch.length;
  if (docs % 1000 === 0) memory(`${docs} added`);
}
memory('all added');
for (let c = await ctx.queue.counts(); c.queued + c.running > 0; c = await ctx.queue.counts()) await new Promise((r) => setTimeout(r, 200));
memory('pipeline drained');
await dossier.idle();
memory('idle');
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
const hash = await contentHash(ctx, collection.id);
await dossier.close();
const figures = {
  collectionId: collection.id,
  docs,
  seconds: +seconds.toFixed(2),
  docsPerSecond: Math.round(docs / seconds),
  cpuUserS: +(cpu.user / 1e6).toFixed(2),
  cpuSystemS: +(cpu.system / 1e6).toFixed(2),
  cpuMsPerDoc: +((cpu.user + cpu.system) / 1000 / docs).toFixed(2),
  peakRssMiB: mib(rss.stop()),
  maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  ...hash,
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
if (sql) process.stderr.write(sql.report());
if (values.keep) process.stderr.write(`kept ${dir}\n`);
else await rm(dir, { recursive: true, force: true });

/** SHA-256 of every chunk (section, position, offsets, tokens, text) and every section row, documents in filename order. */
async function contentHash(ctx: ReturnType<typeof dossierContext>, collectionId: string) {
  const chunks = createHash('sha256');
  const sections = createHash('sha256');
  let chunkCount = 0;
  const { documents } = await ctx.store.listDocuments(collectionId, { limit: 1_000_000, offset: 0 });
  documents.sort((a, b) => a.filename.localeCompare(b.filename));
  for (const d of documents) {
    for (const s of await ctx.store.listSections(d.id)) {
      sections.update(
        JSON.stringify([d.filename, d.status, s.position, s.title, s.level, s.summary, s.chunkCount, s.markdownOffsetStart, s.markdownOffsetEnd]),
      );
      const rows = (await ctx.index.chunksOfSection(collectionId, s.id)).sort((a, b) => a.position - b.position);
      for (const r of rows)
        chunks.update(JSON.stringify([d.filename, s.position, r.position, r.tokenCount, r.charStart, r.charEnd, r.sectionTitle, r.content]));
      chunkCount += rows.length;
    }
  }
  return { sectionsSha: sections.digest('hex').slice(0, 16), chunkCount, chunksSha: chunks.digest('hex').slice(0, 16) };
}
