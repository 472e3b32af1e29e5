/**
 * Scale-out figures (issue 13), on this machine's PostgreSQL and Redis and a local S3 server (s3rver):
 * 1. PDF ingestion throughput with one worker node and with two (each run a fresh deployment: one API node, k
 *    workers, a new database, bucket prefix and index directory), timed from the first upload to the last `ready`
 *    event on the API node's SSE stream;
 * 2. query latency through one API node of the two-worker deployment against an embedded-default node (one process,
 *    SQLite, local files, its own index) holding the same documents, query by query in turn, over HTTP for both.
 *
 *   node --import tsx bench/multi-node.ts [--copies 6] [--queries 200] [--docs ../shared/eval/docs] [--out bench/RESULTS.md]
 *
 * Only the text-layer PDFs of the folder are used (scanned ones would measure OCR). Embeddings off (BM25 only): the
 * machine has no model weights, and the pipeline's CPU work is then PDF conversion, which runs in each worker
 * process's conversion thread.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PIPELINE_CONCURRENCY } from '@dossier/core/internal';
import pg from 'pg';
import S3rver from 's3rver';
import { bootstrapOf, type Deployment, type NodeProcess, nodeEnvironment, startNode, stopNode } from '../examples/multi-node/topology.ts';
import { commandLine, fixed, interleaved, latencyRows, markdownTable, type Row, section, upsertSection } from './beir/report.ts';

const { values } = parseArgs({
  options: {
    copies: { type: 'string', default: '6' },
    queries: { type: 'string', default: '200' },
    docs: { type: 'string', default: join(import.meta.dirname, '../../shared/eval/docs') },
    'postgres-url': { type: 'string', default: process.env.DOSSIER_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    'pin-workers': { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});

/** With --pin-workers, worker i runs on core i only (a one-core machine each); the other processes are not pinned. */
const pinnedCpu = (worker: number): string | undefined => (values['pin-workers'] ? String(worker % cpus().length) : undefined);
/** Text-layer PDFs of the evaluation folder (the others are scans: OCR would dominate every figure). */
const PDFS = [
  'markitdown__REPAIR-2022-INV-001_multipage.pdf',
  'markitdown__SPARSE-2024-INV-1234_borderless_table.pdf',
  'markitdown__test.pdf',
  'unstructured__fake-memo.pdf',
  'unstructured__fake-memo-with-duplicate-page.pdf',
  'unstructured__layout-parser-paper-with-table.pdf',
  'unstructured__loremipsum-flat.pdf',
  'unstructured__single_table.pdf',
];
const files = PDFS.map((name) => ({ name, bytes: readFileSync(join(resolve(values.docs!), name)) }));
const corpus = Array.from({ length: Number(values.copies) }, (_, copy) => files.map((f) => ({ name: `${copy}-${f.name}`, bytes: f.bytes }))).flat();
const root = mkdtempSync(join(tmpdir(), 'dossier-bench-multi-'));
const nodes: NodeProcess[] = [];
const databases: string[] = [];
const admin = new pg.Client({ connectionString: values['postgres-url'] });
await admin.connect();
const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(root, 's3'), configureBuckets: [{ name: 'bench', configs: [] }] });
const s3Endpoint = `http://127.0.0.1:${((await s3.run()) as AddressInfo).port}`;
const QUIET = {
  DOSSIER_EMBEDDING_MODEL: 'none',
  DOSSIER_ALLOW_MODEL_DOWNLOAD: 'false',
  DOSSIER_RATE_LIMIT_KEY: 'off',
  DOSSIER_LOG_LEVEL: 'info',
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
};

async function freshDeployment(name: string): Promise<Deployment> {
  const database = `bench_${name}_${randomUUID().replaceAll('-', '')}`;
  await admin.query(`CREATE DATABASE ${database}`);
  databases.push(database);
  const url = new URL(values['postgres-url']!);
  url.pathname = `/${database}`;
  return {
    databaseUrl: url.toString(),
    redisUrl: values['redis-url']!,
    redisPrefix: `bench-${randomUUID()}:`,
    s3Url: `s3://bench/${name}?endpoint=${encodeURIComponent(s3Endpoint)}`,
    indexDir: join(root, name, 'index'),
    masterKey: randomBytes(32).toString('hex'),
  };
}

async function start(name: string, role: NodeProcess['role'], env: Record<string, string>, cpus?: string): Promise<NodeProcess> {
  const node = await startNode(name, role, env, 120_000, cpus);
  nodes.push(node);
  return node;
}

/** The few fields of API answers the bench reads. */
interface Answer {
  id: string;
  documents: { id: string }[];
}

/** A client of one API node with the deployment's key. */
function client(node: NodeProcess) {
  const { liveKey, projectId } = bootstrapOf(node)!;
  const call = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${liveKey}` };
    const init: RequestInit = { method, headers };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${node.url}${path}`, init);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Answer>;
  };
  return { call, liveKey, projectId, url: node.url };
}

/** Resolves when the SSE stream has carried `ready` (or `error`) for every id; counts errors. */
async function allDone(url: string, ids: () => Set<string>, started: Promise<unknown>): Promise<{ errors: number }> {
  const res = await fetch(url);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const done = new Map<string, string>();
  let buffer = '';
  let uploaded = false;
  void started.then(() => (uploaded = true));
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += read.value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!message.startsWith('data: ')) continue;
      const event = JSON.parse(message.slice(6)) as { documentId: string; status: string };
      if (event.status === 'ready' || event.status === 'error') done.set(event.documentId, event.status);
    }
    await Promise.resolve();
    if (uploaded && [...ids()].every((id) => done.has(id))) break;
  }
  await reader.cancel();
  return { errors: [...done.values()].filter((s) => s === 'error').length };
}

/** Upload the corpus through the API node (batches of 25 files) and wait for every document; seconds taken. */
async function ingest(api: ReturnType<typeof client>, collectionId: string): Promise<{ seconds: number; errors: number; ids: string[] }> {
  const ids = new Set<string>();
  const t0 = performance.now();
  const uploads = (async () => {
    for (let from = 0; from < corpus.length; from += 25) {
      const form = new FormData();
      for (const f of corpus.slice(from, from + 25)) form.append('file', new Blob([f.bytes]), f.name);
      for (const d of (await api.call('POST', `/v1/collections/${collectionId}/documents/batch`, form)).documents) ids.add(d.id);
    }
  })();
  const waiting = allDone(`${api.url}/v1/collections/${collectionId}/documents/events?key=${api.liveKey}`, () => ids, uploads);
  await uploads;
  const { errors } = await waiting;
  return { seconds: (performance.now() - t0) / 1000, errors, ids: [...ids] };
}

/** One ingestion run on a fresh deployment with `workers` worker nodes; leaves the nodes running. */
async function ingestionRun(workers: number) {
  const deployment = await freshDeployment(`w${workers}`);
  const env = (name: string) => nodeEnvironment(deployment, join(root, `w${workers}`, name), QUIET);
  const apiNode = await start(`w${workers}-api`, 'api', env('api'));
  await Promise.all(Array.from({ length: workers }, (_, i) => start(`w${workers}-worker-${i + 1}`, 'worker', env(`worker-${i + 1}`), pinnedCpu(i))));
  const api = client(apiNode);
  const collection = await api.call('POST', '/v1/collections', { projectId: api.projectId, name: `ingest-${workers}` });
  const load = loadavg()[0]!;
  const run = await ingest(api, collection.id);
  return { ...run, api, collectionId: collection.id, load };
}

const bytes = corpus.reduce((sum, f) => sum + f.bytes.length, 0);
const throughput: Row[] = [];
const runs = [];
try {
  for (const workers of [1, 2]) {
    const run = await ingestionRun(workers);
    runs.push(run);
    process.stderr.write(`${workers} worker(s): ${corpus.length} PDFs in ${run.seconds.toFixed(1)} s (${run.errors} errors, load ${run.load.toFixed(1)})\n`);
    throughput.push([`${workers} worker${workers > 1 ? 's' : ''}: documents/s`, fixed(corpus.length / run.seconds, 2)]);
    throughput.push([`${workers} worker${workers > 1 ? 's' : ''}: MB of PDF/s`, fixed(bytes / 1e6 / run.seconds, 2)]);
    throughput.push([`${workers} worker${workers > 1 ? 's' : ''}: documents in error`, String(run.errors)]);
    throughput.push([`${workers} worker${workers > 1 ? 's' : ''}: 1-min load average at start`, fixed(run.load, 1)]);
    if (workers === 1) for (const node of nodes.splice(0)) await stopNode(node); // the two-worker run has the machine to itself
  }
  const [one, two] = runs as [(typeof runs)[0], (typeof runs)[0]];
  throughput.push(['speed-up with two workers', `${fixed(one.seconds / two.seconds, 2)}×`]);

  // Query latency: the two-worker deployment's API node against an embedded-default node with the same PDFs.
  const embeddedNode = await start('embedded', 'all', {
    ...QUIET,
    DOSSIER_DATA_DIR: join(root, 'embedded'),
    DOSSIER_HOST: '127.0.0.1',
    DOSSIER_PORT: '0',
    DOSSIER_REDIS_URL: '',
    DOSSIER_S3_URL: '',
    DOSSIER_DATABASE_URL: '',
    DOSSIER_INDEX_DIR: '',
  });
  const embedded = client(embeddedNode);
  const embeddedCollection = await embedded.call('POST', '/v1/collections', { projectId: embedded.projectId, name: 'embedded' });
  await ingest(embedded, embeddedCollection.id);
  const queries = await queryTexts(two.api, two.ids, Number(values.queries));
  const latency = await interleaved(queries, {
    'multi-node API node': (q) => two.api.call('POST', `/v1/collections/${two.collectionId}/query`, { q, limit: 10 }),
    'embedded default': (q) => embedded.call('POST', `/v1/collections/${embeddedCollection.id}/query`, { q, limit: 10 }),
  });
  const latencyTable: Row[] = Object.entries(latency).flatMap(([name, samples]) => latencyRows(name, samples, [50, 95]));
  const body = `### Ingestion (${corpus.length} PDFs, ${(bytes / 1e6).toFixed(1)} MB)\n\n${markdownTable(throughput)}\n\n### Query latency over HTTP (${queries.length} queries, limit 10, BM25)\n\n${markdownTable(latencyTable)}\n`;
  const heading = `Scale-out — API and worker nodes (issue 13${values['pin-workers'] ? ', one core per worker' : ''})`;
  const notes = [
    `Topology: one API node and 1 or 2 worker nodes (child processes), Postgres ${(await admin.query('show server_version')).rows[0].server_version}, Redis, s3rver, one index directory; workers at their defaults (${DEFAULT_PIPELINE_CONCURRENCY} jobs at once, one conversion thread each).`,
    `This machine has ${cpus().length} cores and is shared with other engineers' test runs: see the load averages; figures are under that contention.`,
    values['pin-workers']
      ? 'Workers pinned (taskset): worker i runs on core i only, as if each had a one-core machine; the API node, Postgres, Redis, s3rver and this bench are not pinned and share the same cores.'
      : 'Nothing pinned: one worker (its main thread and its conversion thread) can already use every core of this machine, so a second worker process has no core to add here.',
  ];
  const text = section(heading, commandLine('bench/multi-node.ts', process.argv.slice(2)), notes, body);
  process.stdout.write(`${text}\n`);
  if (values.out) await upsertSection(values.out, heading, text);
} finally {
  await Promise.all(nodes.map((node) => stopNode(node, 'SIGKILL')));
  for (const database of databases) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
  await s3.close();
  rmSync(root, { recursive: true, force: true });
}

/** Queries of 2–4 words taken from the documents' Markdown (deterministic). */
async function queryTexts(api: ReturnType<typeof client>, ids: string[], n: number): Promise<string[]> {
  const words: string[] = [];
  for (const id of ids.slice(0, PDFS.length)) {
    const res = await fetch(`${api.url}/v1/documents/${id}/markdown`, { headers: { authorization: `Bearer ${api.liveKey}` } });
    words.push(
      ...(await res.text())
        .toLowerCase()
        .match(/[a-z]{4,}/g)!
        .slice(0, 400),
    );
  }
  let seed = 7;
  const next = () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  return Array.from({ length: n }, () => Array.from({ length: 2 + Math.floor(next() * 3) }, () => words[Math.floor(next() * words.length)]).join(' '));
}
