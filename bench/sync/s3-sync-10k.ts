/**
 * Issue 43: a server-side S3 source of 10,000 small objects on s3rver (a local S3-protocol server), synced by a real
 * server process with its default limits: the first run, a re-run with nothing changed (every object skipped by its
 * ETag), then one with 1 % of the objects changed and 1 % deleted. Prints one Markdown table row per run.
 *
 *   node --import tsx bench/sync/s3-sync-10k.ts [--objects 10000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import S3rver from 's3rver';
import { createS3BlobStore } from '../../packages/adapters/src/index.ts';
import { ApiClient } from '../../packages/cli/src/index.ts';
import { bootstrapCredentials, startServer } from '../../test/server-process.ts';

const { values } = parseArgs({ options: { objects: { type: 'string', default: '10000' } } });
const OBJECTS = Number(values.objects);
const WORDS = ['river', 'lantern', 'granite', 'orchard', 'compass', 'harbour', 'meadow', 'falcon', 'copper', 'thistle'];
const BUCKET = 'bench-drive';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Run {
  id: string;
  status: string;
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  failed: number;
  error: string | null;
}

const keyOf = (i: number) => `part-${String(Math.floor(i / 500)).padStart(2, '0')}/note-${String(i).padStart(5, '0')}.md`;

async function putAll(bucket: ReturnType<typeof createS3BlobStore>, keys: number[], text: (i: number) => string): Promise<void> {
  for (let start = 0; start < keys.length; start += 32) {
    await Promise.all(keys.slice(start, start + 32).map((i) => bucket.put(keyOf(i), new TextEncoder().encode(text(i)))));
  }
}

async function untilReady(api: ApiClient, cid: string, expected: number): Promise<void> {
  for (;;) {
    const s = await api.json<{ docCount: number; statusCounts: Record<string, number> }>('GET', `/collections/${cid}/stats`);
    if ((s.statusCounts.ready ?? 0) === expected && s.docCount === expected) return;
    await sleep(200);
  }
}

async function runOnce(name: string, session: ApiClient, api: ApiClient, sources: string, sourceId: string, cid: string, expected: number): Promise<void> {
  const started = performance.now();
  const run = await session.json<Run>('POST', `${sources}/${sourceId}/runs`, { json: {} });
  let done: Run | undefined;
  while (!done) {
    await sleep(200);
    done = (await session.json<Run[]>('GET', `${sources}/${sourceId}/runs`)).find((r) => r.id === run.id && r.status !== 'running');
  }
  const ran = performance.now() - started;
  if (done.status === 'completed') await untilReady(api, cid, expected);
  const ready = performance.now() - started;
  const counts = `${done.added} / ${done.updated} / ${done.deleted} / ${done.unchanged} / ${done.failed}`;
  console.log(`| ${name} | ${(ran / 1000).toFixed(2)} s | ${(ready / 1000).toFixed(2)} s | ${counts} | ${done.status}${done.error ? `: ${done.error}` : ''} |`);
}

async function main(): Promise<void> {
  const s3dir = mkdtempSync(join(tmpdir(), 'dossier-s3-bench-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-s3-sync-bench-'));
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const endpoint = `http://127.0.0.1:${((await s3.run()) as AddressInfo).port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const bucket = createS3BlobStore({
    bucket: BUCKET,
    prefix: 'handbook/',
    client: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { ...credentials } },
  });
  const all = Array.from({ length: OBJECTS }, (_, i) => i);
  const putStarted = performance.now();
  await putAll(bucket, all, (i) => `# Note ${i}\n\nAbout the ${WORDS[i % 10]} and the ${WORDS[(i * 7) % 10]}, number ${i}.\n`);
  const putMs = performance.now() - putStarted;
  const server = await startServer(dataDir, ['--workers', '64', '--sources-allow-private-endpoints', 'true']);
  try {
    const creds = bootstrapCredentials(dataDir);
    const api = new ApiClient(`${server.url}/v1`, creds.live_api_key!);
    const login = await fetch(`${server.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: creds.admin_email, password: creds.admin_password }),
    });
    const session = new ApiClient(`${server.url}/v1`, ((await login.json()) as { token: string }).token);
    const { id: cid } = await api.json<{ id: string }>('POST', '/collections', { json: { projectId: creds.project_id, name: 's3 sync bench' } });
    const sources = `/orgs/${creds.org_id}/projects/${creds.project_id}/sources`;
    const source = await session.json<{ id: string }>('POST', sources, {
      json: { collectionId: cid, kind: 's3', endpoint, bucket: BUCKET, prefix: 'handbook', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    console.log(
      `${OBJECTS} objects of 60–80 bytes on s3rver (put in ${(putMs / 1000).toFixed(1)} s, 32 at a time), server process with default limits, --workers 64\n`,
    );
    console.log('| run | run ended | all ready | added / updated / deleted / unchanged / failed | status |');
    console.log('|---|---|---|---|---|');
    await runOnce('first run', session, api, sources, source.id, cid, OBJECTS);
    await runOnce('re-run, nothing changed', session, api, sources, source.id, cid, OBJECTS);
    const onePercent = Math.round(OBJECTS / 100);
    await putAll(
      bucket,
      Array.from({ length: onePercent }, (_, i) => i * 2),
      (i) => `# Changed ${i}\n\nThe thistle moved to the harbour, ${i}.\n`,
    );
    for (let i = 0; i < onePercent; i++) await bucket.delete(keyOf(i * 2 + 1));
    await runOnce('1 % changed, 1 % deleted', session, api, sources, source.id, cid, OBJECTS - onePercent);
  } finally {
    server.proc.kill('SIGTERM');
    bucket.close();
    await s3.close();
    rmSync(s3dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
