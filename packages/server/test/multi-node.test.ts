import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLanceChunkIndex } from '@dossier/adapters';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOf, type Deployment, type NodeProcess, nodeEnvironment, startNode, stopNode } from '../../../examples/multi-node/topology.ts';
import { databaseForTests } from '../../adapters/test/fixtures/postgres-database.ts';
import { type Json, waitFor } from './helpers.ts';

/**
 * Issue 13's demonstration, in the normal test command: two API processes and two worker processes (real child
 * processes) on Postgres (a database this file creates and drops), Redis and a local S3 server (s3rver), sharing one
 * chunk-index directory. A document uploaded through API node A is followed, status by status, by an SSE client of
 * API node B; the worker is killed with SIGKILL while 200 documents are being ingested, a second worker started, and
 * every document still reaches `ready` with exactly its chunks once; search on both API nodes finds every document.
 */
const REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DOCUMENTS = 200;
/** A killed worker's jobs are taken over after this long (heartbeats renew a live worker's lease every third). */
const LEASE_MS = 5000;

const nodes: NodeProcess[] = [];
const root = mkdtempSync(join(tmpdir(), 'dossier-multi-node-'));
let s3: S3rver | undefined;
const { available, database } = await databaseForTests('dossier_multi_node', () => Promise.all(nodes.map((node) => stopNode(node, 'SIGKILL'))));
afterAll(async () => {
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

let deployment: Deployment;
beforeAll(async () => {
  if (!available) return;
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(root, 's3'), configureBuckets: [{ name: 'files', configs: [] }] });
  const endpoint = `http://127.0.0.1:${((await s3.run()) as AddressInfo).port}`;
  deployment = {
    databaseUrl: database().url,
    redisUrl: REDIS_URL,
    redisPrefix: `test-${randomUUID()}:`,
    s3Url: `s3://files/deployment?endpoint=${encodeURIComponent(endpoint)}`,
    indexDir: join(root, 'index'),
    masterKey: randomBytes(32).toString('hex'),
  };
});

/** Start a node of the deployment as a child process, with its own data directory. */
async function start(name: string, role: 'api' | 'worker'): Promise<NodeProcess> {
  const node = await startNode(
    name,
    role,
    nodeEnvironment(deployment, join(root, name), {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      DOSSIER_EMBEDDING_MODEL: 'none',
      DOSSIER_ALLOW_MODEL_DOWNLOAD: 'false',
      DOSSIER_JOB_LEASE_MS: String(LEASE_MS),
      DOSSIER_WORKERS: '4',
      DOSSIER_RATE_LIMIT_KEY: 'off',
      DOSSIER_LOG_LEVEL: 'info',
    }),
  );
  nodes.push(node);
  return node;
}

interface DocumentEvent {
  documentId: string;
  status: string;
}

/** An SSE client of the document event stream: every event it receives, and a way to wait for a condition on them. */
async function followEvents(url: string) {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal });
  expect(res.status).toBe(200);
  const events: DocumentEvent[] = [];
  const waiters = new Set<() => void>();
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let connected!: () => void;
  const isConnected = new Promise<void>((resolve) => (connected = resolve));
  void (async () => {
    for (let read = await reader.read(); !read.done; read = await reader.read().catch(() => ({ done: true as const, value: undefined }))) {
      buffer += read.value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (message.startsWith(': connected')) connected();
        if (message.startsWith('data: ')) events.push(JSON.parse(message.slice(6)) as DocumentEvent);
      }
      for (const wake of [...waiters]) wake();
    }
  })();
  await isConnected;
  return {
    events,
    /** Resolves when `done(events)` holds; fails after timeoutMs with `what`. */
    until(done: (events: DocumentEvent[]) => boolean, timeoutMs: number, what: string): Promise<void> {
      if (done(events)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        const check = () => {
          if (!done(events)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    close: () => abort.abort(),
  };
}

const statusesOf = (events: DocumentEvent[], id: string) => events.filter((e) => e.documentId === id).map((e) => e.status);
const readyCount = (events: DocumentEvent[], ids: Set<string>) =>
  new Set(events.filter((e) => e.status === 'ready' && ids.has(e.documentId)).map((e) => e.documentId)).size;

/** A Markdown document with a word no other document has, and enough text to take the pipeline a moment. */
function documentText(i: number): string {
  const body = Array.from({ length: 12 }, (_, p) => `Paragraph ${p} of report ${i} describes the harbour, its tides and its cargo in plain words.`).join(
    '\n\n',
  );
  return `# Report ${i}\n\n## Marker\n\nThe unique word of this report is zq${i}k.\n\n## Body\n\n${body}\n`;
}

/**
 * What a timed-out wait needs to be understood: the documents' statuses as the API reads them (with error messages),
 * how many of their `ready` events the SSE client saw, and every warning or error line each node logged.
 */
async function diagnosis(api: NodeProcess, key: string, collectionId: string, events: DocumentEvent[], ids: Set<string>): Promise<string> {
  const res = await fetch(`${api.url}/v1/collections/${collectionId}/documents?limit=500`, { headers: { authorization: `Bearer ${key}` } });
  const documents = ((await res.json()) as { documents?: { status: string; errorMessage?: string | null }[] }).documents ?? [];
  const statuses = new Map<string, number>();
  for (const d of documents) statuses.set(d.status, (statuses.get(d.status) ?? 0) + 1);
  const errors = [...new Set(documents.flatMap((d) => (d.errorMessage ? [d.errorMessage] : [])))].slice(0, 5);
  const logged = nodes.map((node) => {
    const lines = node.stderr.split('\n').filter((line) => /"level":"(warn|error)"/.test(line));
    return `${node.name} (exit ${node.child.exitCode ?? node.child.signalCode ?? 'running'}): ${lines.length} warn/error lines\n${lines.slice(-8).join('\n')}`;
  });
  return [
    `statuses read from the API: ${JSON.stringify(Object.fromEntries(statuses))}; ready events seen: ${readyCount(events, ids)} of ${ids.size}`,
    `error messages: ${JSON.stringify(errors)}`,
    ...logged,
  ].join('\n');
}

describe.skipIf(!available)('several API and worker nodes', () => {
  it('follow one upload across nodes, survive a worker killed mid-ingestion, and serve every document from both API nodes', { timeout: 240_000 }, async () => {
    const nodeA = await start('api-a', 'api');
    const { liveKey: key, projectId } = bootstrapOf(nodeA)!;
    // Worker 2 starts only once worker 1 is killed, so worker 1 is sure to hold ingestion jobs when it dies (with both
    // running, a fast machine once had every document ingested before worker 1 was seen holding one).
    const [nodeB, worker1] = await Promise.all([start('api-b', 'api'), start('worker-1', 'worker')]);
    const call = async (node: NodeProcess, method: string, path: string, body?: unknown) => {
      const init: RequestInit = { method, headers: { authorization: `Bearer ${key}` } };
      if (body instanceof FormData) init.body = body;
      else if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const res = await fetch(`${node.url}${path}`, init);
      return { status: res.status, body: (await res.json()) as Json };
    };
    const collection = (await call(nodeA, 'POST', '/v1/collections', { projectId, name: 'fleet' })).body;
    const stream = await followEvents(`${nodeB.url}/v1/collections/${collection.id}/documents/events?key=${key}`);

    // 1. One upload through A (presigned straight to S3), followed status by status on B.
    const bytes = new TextEncoder().encode(documentText(-1));
    const started = (
      await call(nodeA, 'POST', `/v1/collections/${collection.id}/documents/upload-url`, { filename: 'watched.md', fileSizeBytes: bytes.byteLength })
    ).body;
    expect(new URL(started.uploadUrl).pathname.startsWith('/files/deployment/')).toBe(true);
    expect((await fetch(started.uploadUrl, { method: 'PUT', body: bytes })).status).toBe(200);
    expect((await call(nodeA, 'POST', `/v1/collections/${collection.id}/documents/${started.documentId}/confirm`, {})).status).toBe(200);
    await stream.until((events) => statusesOf(events, started.documentId).includes('ready'), 60_000, 'the watched document to be ready on node B');
    expect(statusesOf(stream.events, started.documentId)).toEqual(['uploading', 'processing', 'sectioned', 'embedded', 'ready']);

    // 2. 200 documents through A; worker 1 is killed once a fifth of them are ready, and worker 2 takes over.
    const ids: string[] = [];
    for (let batch = 0; batch < DOCUMENTS; batch += 100) {
      const form = new FormData();
      for (let i = batch; i < batch + 100; i++) form.append('file', new Blob([documentText(i)]), `report-${i}.md`);
      const uploaded = await call(nodeA, 'POST', `/v1/collections/${collection.id}/documents/batch`, form);
      expect(uploaded.status).toBe(202);
      ids.push(...uploaded.body.documents.map((d: { id: string }) => d.id));
    }
    const all = new Set(ids);
    await stream.until((events) => readyCount(events, all) >= DOCUMENTS / 5, 120_000, `${DOCUMENTS / 5} documents to be ready`);
    // Killed while it holds ingestion jobs (their leases running out and the jobs running again is what this checks);
    // the lease owner starts with the worker's host and pid.
    const heldByWorker1 = async () =>
      Number(
        (
          await database().query<{ n: string }>("select count(*) as n from jobs where state = 'running' and type like 'ingest.%' and lease_owner like $1", [
            `%:${worker1!.child.pid}:%`,
          ])
        )[0]!.n,
      );
    await waitFor(async () => (await heldByWorker1()) > 0, 'worker 1 to hold an ingestion job', 60_000, 20);
    const readyAtKill = readyCount(stream.events, all);
    await stopNode(worker1!, 'SIGKILL');
    await start('worker-2', 'worker');
    expect(readyAtKill).toBeLessThan(DOCUMENTS);
    await stream
      .until((events) => readyCount(events, all) === DOCUMENTS, 150_000, `all ${DOCUMENTS} documents to be ready after the kill`)
      .catch(async (timeout: Error) => {
        throw new Error(`${timeout.message}\n${await diagnosis(nodeB, key, collection.id, stream.events, all)}`);
      });
    for (const id of ids) expect(statusesOf(stream.events, id)[0]).toBe('uploading');
    // The killed worker held jobs: they ran again on the other worker once their leases ran out.
    const retried = await database().query<{ n: string }>("select count(*) as n from jobs where type like 'ingest.%' and attempts > 1");
    expect(Number(retried[0]!.n)).toBeGreaterThan(0);

    // 3. Every document ready with exactly its chunks, once; search on both API nodes finds each one.
    const listed = (await call(nodeB, 'GET', `/v1/collections/${collection.id}/documents?limit=500`)).body.documents as {
      id: string;
      status: string;
      chunkCount: number;
      filename: string;
    }[];
    expect(listed).toHaveLength(DOCUMENTS + 1);
    expect(listed.every((d) => d.status === 'ready' && d.chunkCount > 0)).toBe(true);
    const index = createLanceChunkIndex({ dir: deployment.indexDir, optimizeInBackground: false, sharedWithOtherProcesses: true });
    try {
      for (const d of listed) expect(await index.countChunks(collection.id, d.id), d.filename).toBe(d.chunkCount);
      expect(await index.countChunks(collection.id)).toBe(listed.reduce((sum, d) => sum + d.chunkCount, 0));
    } finally {
      await index.close();
    }
    for (const node of [nodeA, nodeB]) {
      for (let from = 0; from < DOCUMENTS; from += 20) {
        const tops = await Promise.all(
          ids.slice(from, from + 20).map(async (_, k) => {
            const hits = await call(node, 'POST', `/v1/collections/${collection.id}/query`, { q: `zq${from + k}k`, limit: 1 });
            return hits.body[0]?.document.id;
          }),
        );
        expect(tops).toEqual(ids.slice(from, from + 20));
      }
    }
    stream.close();
  });
});
