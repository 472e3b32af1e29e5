// Peak resident memory and documents/s of a BEIR corpus ingested through the *installed* package, one upload at a
// time: plain JavaScript, no tsx in the process or its worker threads (tsx's loader adds memory to every thread, and
// its esbuild service and loader hooks CPU to the run). Then, in the same run, the bare LanceDB load of the same rows
// (bench/ingest/bare-load.ts's). Run by installed-memory.sh, which builds, packs and installs the packages first.
//   node installed-memory.mjs <corpus.jsonl>
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createDossier } from '@dossier/adapters';

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
try {
  const local = await dossier.local();
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
console.log(JSON.stringify({ documents: documents.length, seconds: Number(seconds.toFixed(1)), docsPerSecond: Number((documents.length / seconds).toFixed(1)), peakRssMiB: mib(peak), peakHeapMiB: mib(peakHeap), bareLanceSeconds: Number(bareSeconds.toFixed(2)) }));

/** The bare engine, as bench/ingest/bare-load.ts: rows 1,000 at a time into one LanceDB table, then its FTS index. */
async function bareLanceLoad(rows) {
  // LanceDB comes with the installed adapters (a dependency of theirs, hoisted by npm).
  const lancedb = await import('@lancedb/lancedb');
  const dir = await mkdtemp(join(tmpdir(), 'dossier-bare-'));
  const db = await lancedb.connect(dir);
  try {
    const started = performance.now();
    let table = null;
    for (let i = 0; i < rows.length; i += 1000) {
      if (table) await table.add(rows.slice(i, i + 1000));
      else table = await db.createTable('bare', rows.slice(i, i + 1000));
    }
    await table?.createIndex('text', { config: lancedb.Index.fts() });
    table?.close();
    return (performance.now() - started) / 1000;
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
