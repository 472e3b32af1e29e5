/**
 * Near-duplicate detection at scale: N synthetic documents (about 200 words each from a Zipf vocabulary whose most
 * frequent words are English stop words, as in real text; 2 % of them copies, excerpts or edited copies of others)
 * are written straight into the stores of an embedded Dossier (no conversion or embedding), then a full detection
 * run is timed with the peak RSS, and the incremental check of new documents (p50 / p99 over 200).
 *
 *   node --import tsx bench/duplicates/scale.ts [--docs 100000] [--seeded DIR]
 *
 * --seeded DIR keeps the seeded stores in DIR (made on the first run) and times every later run with as many
 * documents on a fresh copy of it, so iterating on detection does not pay the seeding again. The texts are
 * generated again either way (the same seed), since the incremental checks copy some of them.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import type { DocumentRecord } from '@dossier/core';
import { checkDuplicateDocument, newId } from '@dossier/core/internal';
import { random } from './variants.ts';
import { dossierContext } from '@dossier/core/testing';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '100000' }, seeded: { type: 'string' } } });
const total = Number(values.docs);
const rand = random(7);
const STOP =
  'the of and to a in is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can who its them than into only other some could these two may then do any'.split(
    ' ',
  );
const vocabulary = [...STOP, ...Array.from({ length: 20_000 }, (_, index) => `w${index.toString(36)}`)];
const zipfWord = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(rand() * Math.log(vocabulary.length))) - 1)]!;
const text = (words: number) => Array.from({ length: words }, zipfWord).join(' ');

const DOSSIER_OPTIONS = { embeddingModel: 'none', allowModelDownload: false, workers: { concurrency: 2 } } as const;
const marker = values.seeded ? join(values.seeded, 'scale-seed.json') : null;
const reuse = marker !== null && existsSync(marker) && JSON.parse(readFileSync(marker, 'utf8')).docs === total;
if (values.seeded && !reuse) rmSync(values.seeded, { recursive: true, force: true });
let dataDir = values.seeded && !reuse ? values.seeded : mkdtempSync(join(tmpdir(), 'dossier-dup-scale-'));
if (reuse) cpSync(values.seeded!, dataDir, { recursive: true });
let dossier = await createDossier({ dataDir, ...DOSSIER_OPTIONS });
let local = await dossier.local();
const collection = reuse ? { id: JSON.parse(readFileSync(marker!, 'utf8')).collectionId as string } : await local.collections.create({ name: 'scale' });
let ctx = dossierContext(dossier);
let stored = await ctx.store.getCollection(collection.id);

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
    id,
    collectionId: collection.id,
    filename: `doc-${index}.md`,
    contentType: 'text/markdown',
    status: 'ready',
    fileSizeBytes: markdown.length,
    sectionCount: 1,
    chunkCount: 1,
    contentHash: null,
    storageKey: null,
    markdownStorageKey: key,
    derivedBytes: markdown.length,
    errorMessage: null,
    tags: [],
    metadata: {},
    chunkSize: 512,
    chunkOverlap: 64,
    canonical: true,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.store.insertDocument(doc);
  return doc;
}

const seedStarted = performance.now();
const texts: string[] = [];
const pending: Promise<DocumentRecord>[] = [];
for (let index = 0; index < total; index++) {
  const copyOf = index > 100 && rand() < 0.02 ? texts[Math.floor(rand() * texts.length)]! : null;
  const roll = rand();
  const edited = (source: string) =>
    source
      .split(' ')
      .map((word) => (rand() < 0.1 ? zipfWord() : word))
      .join(' ');
  const body = copyOf ? (roll < 0.33 ? copyOf : roll < 0.66 ? copyOf.split(' ').slice(50, 150).join(' ') : edited(copyOf)) : text(200);
  if (texts.length < 5_000) texts.push(body);
  if (!reuse) pending.push(seed(index, `# Document ${index}\n\n${body}\n`));
  if (pending.length >= 32) await Promise.all(pending.splice(0));
}
await Promise.all(pending);
console.log(`${reuse ? 'reused' : 'seeded'} ${total} documents in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
if (values.seeded && !reuse) {
  // Keep the seeded stores as they are now, and time this run on a copy like every later one.
  await dossier.close();
  writeFileSync(marker!, JSON.stringify({ docs: total, collectionId: collection.id }));
  dataDir = mkdtempSync(join(tmpdir(), 'dossier-dup-scale-'));
  cpSync(values.seeded, dataDir, { recursive: true });
  dossier = await createDossier({ dataDir, ...DOSSIER_OPTIONS });
  local = await dossier.local();
  ctx = dossierContext(dossier);
  stored = await ctx.store.getCollection(collection.id);
}

const detectStarted = performance.now();
const detectCpu = process.cpuUsage();
rssPeak = 0;
await local.duplicates.detect(collection.id);
await dossier.idle();
const run = await local.duplicates.latestRun(collection.id);
const detectSeconds = (performance.now() - detectStarted) / 1000;
const cpu = process.cpuUsage(detectCpu);
console.log(
  `CPU time of the detection (this process, all threads): ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; load average ${loadavg()[0]!.toFixed(1)} on 2 cores`,
);
console.log(
  `full detect: ${detectSeconds.toFixed(1)} s for ${total} documents (goal ≤ 120 s); ${run.duplicatesDetected} near-duplicates in ${run.duplicateGroupsCreated} groups; status ${run.status}`,
);
console.log(`peak RSS during detect: ${Math.round(rssPeak / 1024 / 1024)} MiB`);

// Half new text (a lookup that finds nothing), half copies of seeded documents (a lookup, an alignment and a group write).
const timings: { all: number[]; unique: number[]; copies: number[] } = { all: [], unique: [], copies: [] };
for (let attempt = 0; attempt < 200; attempt++) {
  const copy = attempt % 2 === 1;
  const doc = await seed(total + attempt, `# New\n\n${copy ? texts[attempt]! : text(200)}\n`);
  const started = performance.now();
  await checkDuplicateDocument(ctx, stored!, doc);
  const elapsed = performance.now() - started;
  timings.all.push(elapsed);
  (copy ? timings.copies : timings.unique).push(elapsed);
}
const at = (list: number[], share: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(share * list.length))]!.toFixed(1);
for (const [label, list] of Object.entries(timings)) {
  console.log(`incremental check, ${label} (${list.length}): p50 ${at(list, 0.5)} ms, p99 ${at(list, 0.99)} ms, max ${at(list, 1)} ms (goal p99 ≤ 50 ms)`);
}
console.log(
  `load average during the run: ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' / ')} (2 cores)`,
);
clearInterval(sampler);
await dossier.close();
rmSync(dataDir, { recursive: true, force: true });
