/**
 * Issue 11's sustained-load figure: a real server ingests SciFact abstracts over HTTP (batch uploads, several
 * uploaders), and as soon as the last document is `ready` — while background index maintenance folds,
 * compacts and cleans up what the bulk load wrote — a client sends queries at a fixed rate (open loop: a slow
 * answer does not slow the sender) for a fixed time. Prints latency percentiles, the worst second, errors and
 * the LanceDB folder before and after it settles.
 *
 * The client runs in a child process (its own event loop), so the server's figures do not include the cost of
 * sending the requests; both share this machine's two cores.
 *
 *   node --import tsx bench/sustained-load.ts [--docs 2000] [--rate 50] [--seconds 600] [--out bench/RESULTS.md]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, startServer } from '@dossier/server';
import { REPO_ROOT } from './beir/args.ts';
import { batches, readCorpus, readTestQueries, toMarkdown } from './beir/dataset.ts';
import { percentile } from './beir/metrics.ts';
import { commandLine, fixed, markdownTable, type Row, section, upsertSection } from './beir/report.ts';
import { sampleRss } from './beir/rss.ts';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: join(REPO_ROOT, '../shared/eval/beir/scifact') },
    docs: { type: 'string', default: '2000' },
    uploaders: { type: 'string', default: '8' },
    rate: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '600' },
    out: { type: 'string' },
    /** Internal: run as the load-generating child against `<url>` with `<key>` and `<collectionId>`. */
    client: { type: 'string' },
    key: { type: 'string' },
    collection: { type: 'string' },
  },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);

interface LoadResult {
  ms: number[];
  errors: number;
  statuses: Record<string, number>;
  /** Per second of the run, the slowest answer to a query sent in that second. */
  worstPerSecond: number[];
}

/** Open-loop load: query i is sent at i / RATE seconds after the start, whatever earlier answers do. */
async function sendLoad(url: string, key: string, collectionId: string): Promise<LoadResult> {
  const { queries } = await readTestQueries(values.dataset!);
  const total = Math.round(RATE * SECONDS);
  const ms: number[] = new Array(total);
  const statuses: Record<string, number> = {};
  const start = performance.now();
  const one = async (i: number) => {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    const q = queries[i % queries.length]!.text;
    let status = 'network error';
    try {
      const res = await fetch(`${url}/v1/collections/${collectionId}/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ q, limit: 10 }),
      });
      await res.arrayBuffer();
      status = String(res.status);
    } catch {}
    ms[i] = performance.now() - t0;
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  await Promise.all(Array.from({ length: total }, (_, i) => one(i)));
  const worstPerSecond = Array.from({ length: Math.ceil(SECONDS) }, (_, s) => Math.max(0, ...ms.slice(s * RATE, (s + 1) * RATE)));
  return { ms, errors: total - (statuses['200'] ?? 0), statuses, worstPerSecond };
}

/** Run the load from a child process; resolves with its figures. */
function loadFromChild(url: string, key: string, collectionId: string): Promise<LoadResult> {
  const args = ['--import', 'tsx', new URL(import.meta.url).pathname, '--client', url, '--key', key, '--collection', collectionId];
  const child = spawn(process.execPath, [...args, '--rate', String(RATE), '--seconds', String(SECONDS), '--dataset', values.dataset!], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load process exited with ${code}`))));
  });
}

/** Bytes and files under a folder (files removed mid-walk count 0). */
async function folderSize(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    files++;
    bytes += await stat(join(e.parentPath, e.name)).then(
      (s) => s.size,
      () => 0,
    );
  }
  return { bytes, files };
}

/** Uploads the first `docs` corpus records, 50 per batch request, `uploaders` requests at a time; returns the text bytes. */
async function ingest(url: string, key: string, collectionId: string): Promise<number> {
  const docs: string[][] = [];
  for await (const batch of batches(readCorpus(values.dataset!, Number(values.docs)), 50))
    docs.push(batch.map((d) => toMarkdown(d)).concat(batch.map((d) => `${d.id}.md`)));
  let textBytes = 0;
  let next = 0;
  const uploader = async () => {
    while (next < docs.length) {
      const batch = docs[next++]!;
      const half = batch.length / 2;
      const form = new FormData();
      for (let i = 0; i < half; i++) {
        textBytes += Buffer.byteLength(batch[i]!);
        form.append('file', new Blob([batch[i]!]), batch[half + i]!);
      }
      const res = await fetch(`${url}/v1/collections/${collectionId}/documents/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: Number(values.uploaders) }, uploader));
  return textBytes;
}

const lat = (label: string, xs: number[]): Row[] => [50, 90, 99].map((p) => [`${label} p${p} (ms)`, fixed(percentile(xs, p), 1)] as Row);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'dossier-sustained-'));
  const rss = sampleRss();
  const config = { ...loadConfig([], {}), port: 0, dataDir: dir, embeddingModel: 'none', allowModelDownload: false, logLevel: 'silent' as const };
  const server = await startServer(Object.freeze(config), { log: { info() {}, warn() {}, error() {} } });
  try {
    const { liveKey: key, projectId } = server.bootstrap!;
    const created = await fetch(`${server.url}/v1/collections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ projectId, name: 'scifact' }),
    });
    const collectionId = ((await created.json()) as { id: string }).id;
    const t0 = performance.now();
    const textBytes = await ingest(server.url, key, collectionId);
    await server.dossier.idle();
    const ingestS = (performance.now() - t0) / 1000;
    const lance = join(dir, 'lancedb');
    const before = await folderSize(lance);
    const load = await loadFromChild(server.url, key, collectionId);
    const after = await folderSize(lance);
    const slowSeconds = load.worstPerSecond.filter((w) => w > 300).length;
    const rows: Row[] = [
      ['documents ingested over HTTP', values.docs!],
      ['ingest wall clock (s)', fixed(ingestS, 1)],
      ['document text (MiB)', fixed(textBytes / 2 ** 20, 2)],
      ['queries sent', `${load.ms.length} (${RATE}/s for ${SECONDS} s)`],
      ...lat('query', load.ms),
      ['query max (ms)', fixed(Math.max(...load.ms), 0)],
      ['seconds with an answer > 300 ms', String(slowSeconds)],
      ['when (seconds into the load)', slowRanges(load.worstPerSecond, 300) || '—'],
      ['errors (non-200)', `${load.errors}${load.errors ? ` ${JSON.stringify(load.statuses)}` : ''}`],
      ['LanceDB folder when ingestion ended (MiB, files)', `${fixed(before.bytes / 2 ** 20, 1)} (${before.files})`],
      ['LanceDB folder after the load (MiB, files)', `${fixed(after.bytes / 2 ** 20, 1)} (${after.files})`],
      ['LanceDB folder ÷ document text, after', fixed(after.bytes / textBytes, 2)],
      ['server peak RSS (MiB)', fixed(rss.stop() / 2 ** 20, 0)],
    ];
    const table = markdownTable(rows);
    process.stdout.write(`\n${table}\n`);
    if (values.out) {
      const heading = 'Sustained query load right after a bulk ingestion (issue 11)';
      const notes = [
        `Server with default settings, BM25 only; ${values.docs} SciFact abstracts uploaded 50 per request by ${values.uploaders} uploaders; queries (limit 10) are the SciFact test queries in turn, sent open-loop from a child process`,
      ];
      await upsertSection(values.out, heading, section(heading, commandLine('bench/sustained-load.ts', process.argv.slice(2)), notes, table));
    }
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The seconds whose worst answer took longer than `ms`, as ranges (`12–19, 245`). */
function slowRanges(worstPerSecond: number[], ms: number): string {
  const ranges: string[] = [];
  for (let second = 0; second < worstPerSecond.length; second++) {
    if (worstPerSecond[second]! <= ms) continue;
    const first = second;
    while (second + 1 < worstPerSecond.length && worstPerSecond[second + 1]! > ms) second++;
    ranges.push(first === second ? String(first) : `${first}–${second}`);
  }
  return ranges.join(', ');
}

if (values.client) process.stdout.write(JSON.stringify(await sendLoad(values.client, values.key!, values.collection!)));
else await main();
