/**
 * Near-duplicate detection at scale: N synthetic documents (about 200 words each from a Zipf vocabulary, 2 % of
 * them copies or excerpts of others) are written straight into the stores of an embedded Dossier (no pipeline),
 * then a full detection run is timed, with the peak RSS, and the incremental check of one new document.
 *
 *   node --import tsx bench/duplicates/scale.ts [--docs 100000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { checkDuplicateDocument, type DocumentRecord, newId } from '@dossier/core';
import { random } from './variants.ts';
import { dossierContext } from '@dossier/core/testing';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '100000' } } });
const total = Number(values.docs);
const rand = random(7);
const vocabulary = Array.from({ length: 20_000 }, (_, index) => `w${index.toString(36)}`);
const zipfWord = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(rand() * Math.log(vocabulary.length))) - 1)]!;
const text = (words: number) => Array.from({ length: words }, zipfWord).join(' ');

const dataDir = mkdtempSync(join(tmpdir(), 'dossier-dup-scale-'));
const dossier = await createDossier({ dataDir, embeddingModel: 'none', allowModelDownload: false, workers: { concurrency: 2 } });
const local = await dossier.local();
const collection = await local.collections.create({ name: 'scale' });
const ctx = dossierContext(dossier);
const stored = await ctx.store.getCollection(collection.id);

let rssPeak = 0;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}, 200);

async function seed(index: number, markdown: string): Promise<DocumentRecord> {
  const id = newId();
  const key = `live/${stored!.projectId}/${collection.id}/${id}/document.md`;
  await ctx.blobs.put(key, new TextEncoder().encode(markdown));
  const now = new Date().toISOString();
  const doc: DocumentRecord = {
    id, collectionId: collection.id, filename: `doc-${index}.md`, contentType: 'text/markdown', status: 'ready', fileSizeBytes: markdown.length,
    sectionCount: 1, chunkCount: 1, contentHash: null, storageKey: null, markdownStorageKey: key, derivedBytes: markdown.length, errorMessage: null, tags: [], metadata: {},
    chunkSize: 512, chunkOverlap: 64, canonical: true, createdAt: now, updatedAt: now,
  };
  await ctx.store.insertDocument(doc);
  return doc;
}

const seedStarted = performance.now();
const texts: string[] = [];
for (let index = 0; index < total; index++) {
  const copyOf = index > 100 && rand() < 0.02 ? texts[Math.floor(rand() * texts.length)]! : null;
  const body = copyOf ? (rand() < 0.5 ? copyOf : copyOf.split(' ').slice(50, 150).join(' ')) : text(200);
  if (texts.length < 5_000) texts.push(body);
  await seed(index, `# Document ${index}\n\n${body}\n`);
}
console.log(`seeded ${total} documents in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

const detectStarted = performance.now();
rssPeak = 0;
await local.duplicates.detect(collection.id);
await dossier.idle();
const run = await local.duplicates.latestRun(collection.id);
const detectSeconds = (performance.now() - detectStarted) / 1000;
console.log(`full detect: ${detectSeconds.toFixed(1)} s for ${total} documents (goal ≤ 120 s); ${run.duplicatesDetected} near-duplicates in ${run.duplicateGroupsCreated} groups; status ${run.status}`);
console.log(`peak RSS during detect: ${Math.round(rssPeak / 1024 / 1024)} MiB`);

const timings: number[] = [];
for (let attempt = 0; attempt < 20; attempt++) {
  const doc = await seed(total + attempt, `# New\n\n${attempt % 2 ? texts[attempt]! : text(200)}\n`);
  const started = performance.now();
  await checkDuplicateDocument(ctx, stored!, doc);
  timings.push(performance.now() - started);
}
timings.sort((a, b) => a - b);
console.log(`incremental check of one new document: p50 ${timings[10]!.toFixed(1)} ms, max ${timings.at(-1)!.toFixed(1)} ms (goal ≤ 50 ms)`);
clearInterval(sampler);
await dossier.close();
rmSync(dataDir, { recursive: true, force: true });
