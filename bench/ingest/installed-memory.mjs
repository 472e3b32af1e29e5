// Peak resident memory and documents/s of a BEIR corpus ingested through the *installed* package, one upload at a
// time, timed from once the library has started (warm-up.mjs): plain JavaScript, no tsx in the process or its worker
// threads (tsx's loader adds memory to every thread, and its esbuild service and loader hooks CPU to the run). Then,
// in the same run, the bare LanceDB load of the same rows (bare-load.mjs, shared with the other ingestion benches).
// Run by installed-memory.sh, which builds, packs and installs the packages first.
//   node installed-memory.mjs <corpus.jsonl>
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createDossier } from '@dossier/adapters';
// Copied beside this file by installed-memory.sh; LanceDB comes with the installed adapters (hoisted by npm).
import { bareLanceLoad } from './bare-load.mjs';
import { warmUp } from './warm-up.mjs';

const corpus = process.argv[2];
if (!corpus) throw new Error('usage: node installed-memory.mjs <corpus.jsonl>');
const documents = [];
for await (const line of createInterface({ input: createReadStream(corpus) })) {
  if (!line.trim()) continue;
  const record = JSON.parse(line);
  documents.push({ id: record._id, markdown: record.title ? `# ${record.title}\n\n${record.text}\n` : `${record.text}\n` });
}
const mib = (bytes) => Math.round(bytes / 1048576);
let peak = process.memoryUsage.rss();
let peakHeap = process.memoryUsage().heapUsed;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
}, 100);
const dataDir = await mkdtemp(join(tmpdir(), 'dossier-installed-memory-'));
const dossier = await createDossier({ dataDir, embeddingModel: 'none', allowModelDownload: false });
let seconds;
let startSeconds;
try {
  const local = await dossier.local();
  startSeconds = await warmUp(
    dossier,
    local,
    documents.map((d) => d.markdown),
  );
  const collection = await local.collections.create({ name: 'memory' });
  const started = performance.now();
  for (const doc of documents) await local.documents.upload(collection.id, { filename: `${doc.id}.md`, bytes: new TextEncoder().encode(doc.markdown) });
  await dossier.idle();
  seconds = (performance.now() - started) / 1000;
  peak = Math.max(peak, process.memoryUsage.rss());
} finally {
  clearInterval(sampler);
  await dossier.close();
  await rm(dataDir, { recursive: true, force: true });
}
const bareSeconds = await bareLanceLoad(documents.map((d) => ({ id: d.id, text: d.markdown })));
console.log(
  JSON.stringify({
    documents: documents.length,
    seconds: Number(seconds.toFixed(1)),
    docsPerSecond: Number((documents.length / seconds).toFixed(1)),
    startSeconds: Number(startSeconds.toFixed(1)),
    peakRssMiB: mib(peak),
    peakHeapMiB: mib(peakHeap),
    bareLanceSeconds: Number(bareSeconds.toFixed(2)),
  }),
);
