import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dossier, S3SourceOpener, SourceEntry, SourceRunRecord } from '@dossier/core';
import { dossierContext, sourceRecord, sourceRunRecord } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDossier } from '../src/create-dossier.ts';

/**
 * Issue 43: a source's file over the 25 MB of a direct upload is streamed into the store, never read whole. The
 * source here hands out its bytes through ONE reused 64 KiB buffer, overwritten before each next chunk: a file stored
 * right is proof that each chunk was written before the next was read (an ingest that gathered the chunks first would
 * store the last chunk's bytes everywhere). Real SQLite and file-system store; the source is a double only for what
 * it hands out and counts.
 */

const CHUNK = 64 * 1024;
const LARGE = 25 * 1024 * 1024 + 3 * CHUNK;
const HEAD = '<html><body><h1>Keeper log</h1><p>The keeper saw a green flash over the reef.</p><script>//';
const TAIL = '\n</script></body></html>';

/** Fill the shared buffer with chunk `i` of a file of `size` bytes: HTML around a script of letters that change per chunk. */
function fillChunk(buffer: Uint8Array, i: number, size: number): Uint8Array {
  const length = Math.min(CHUNK, size - i * CHUNK);
  const view = buffer.subarray(0, length);
  view.fill(97 + (i % 26));
  if (i === 0) view.set(new TextEncoder().encode(HEAD));
  if ((i + 1) * CHUNK >= size) view.set(new TextEncoder().encode(TAIL), length - TAIL.length);
  return view;
}

interface Probe {
  opener: S3SourceOpener;
  /** What the source handed out: whole reads, streams opened, bytes streamed, their SHA-256. */
  reads: number;
  streams: number;
  streamed: number;
  hash: () => string;
}

/** A source of one entry listed with `listedSize` whose stream hands out `actualSize` bytes through one reused buffer. */
function probe(path: string, listedSize: number, actualSize = listedSize): Probe {
  const digest = createHash('sha256');
  const p: Probe = {
    reads: 0,
    streams: 0,
    streamed: 0,
    hash: () => `sha256:${digest.copy().digest('hex')}`,
    opener: () => ({
      list: async (): Promise<SourceEntry[]> => [{ path, stamp: `etag:${listedSize}`, size: listedSize }],
      read: async () => {
        p.reads++;
        throw new Error('a large entry must not be read whole');
      },
      async *stream() {
        p.streams++;
        const shared = new Uint8Array(CHUNK);
        for (let i = 0; i * CHUNK < actualSize; i++) {
          const chunk = fillChunk(shared, i, actualSize);
          digest.update(chunk);
          p.streamed += chunk.byteLength;
          yield chunk;
        }
      },
      close: () => {},
    }),
  };
  return p;
}

const dirs: string[] = [];
const nodes: Dossier[] = [];
afterAll(async () => {
  for (const node of nodes) await node.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function nodeWith(p: Probe, maxFileBytes: number): Promise<Dossier> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-source-stream-'));
  dirs.push(dataDir);
  const node = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 2, pollMs: 20 }, sources: { s3: p.opener, maxFileBytes } });
  nodes.push(node);
  return node;
}

/** Add an S3 source over the probe's entry and run it once, to its end. */
async function runOnce(node: Dossier): Promise<{ run: SourceRunRecord; collectionId: string }> {
  const collection = await (await node.local()).collections.create({ name: 'mirrored' });
  const ctx = dossierContext(node);
  const now = new Date().toISOString();
  const source = sourceRecord(collection.id, now, {
    kind: 's3',
    location: 'bucket/',
    credentialsEncrypted: ctx.secrets.encrypt(JSON.stringify({ accessKeyId: 'k', secretAccessKey: 's' })),
    settings: { bucket: 'bucket', prefix: '', region: 'us-east-1', forcePathStyle: 'true' },
  });
  await ctx.store.insertSource(source);
  const asked = sourceRunRecord(source, now);
  await ctx.store.insertSourceRun(asked);
  const runId = asked.id;
  await ctx.queue.enqueue({ type: 'source.sync', payload: { sourceId: source.id, runId, force: false }, dedupeKey: `source.sync:${runId}` });
  ctx.wakeWorkers();
  const run = await vi.waitFor(
    async () => {
      const found = (await ctx.store.listSourceRuns(source.id, 5)).find((r) => r.id === runId);
      if (!found || found.status === 'running') throw new Error('the run is still going');
      return found;
    },
    { timeout: 60_000, interval: 50 },
  );
  return { run, collectionId: collection.id };
}

describe('a source file over 25 MB', () => {
  let sha = '';
  beforeAll(() => {
    const whole = createHash('sha256');
    const buffer = new Uint8Array(CHUNK);
    for (let i = 0; i * CHUNK < LARGE; i++) whole.update(fillChunk(buffer, i, LARGE));
    sha = `sha256:${whole.digest('hex')}`;
  });

  it('is streamed into the store chunk after chunk, never read whole, and becomes a document with its hash', async () => {
    const p = probe('logs/keeper.html', LARGE);
    const node = await nodeWith(p, LARGE + CHUNK);
    const { run, collectionId } = await runOnce(node);
    expect(run, JSON.stringify(run.details)).toMatchObject({ status: 'completed', added: 1, failed: 0 });
    expect({ reads: p.reads, streams: p.streams, streamed: p.streamed }).toEqual({ reads: 0, streams: 1, streamed: LARGE });
    const ctx = dossierContext(node);
    const doc = await ctx.store.findDocumentBySourcePath(collectionId, 'logs/keeper.html');
    expect(doc).toMatchObject({ fileSizeBytes: LARGE, contentHash: sha, sourceStamp: `etag:${LARGE}` });
    // The stored file is the one the source handed out: each reused chunk was written before the next overwrote it.
    const stored = await ctx.blobs.get(doc!.storageKey!);
    expect(`sha256:${createHash('sha256').update(stored).digest('hex')}`).toBe(sha);
    expect(p.hash()).toBe(sha);
  });

  it('over the server upload limit is a failed entry saying so, before a byte is read', async () => {
    const p = probe('logs/huge.html', LARGE);
    const node = await nodeWith(p, LARGE - 1);
    const { run, collectionId } = await runOnce(node);
    expect(run).toMatchObject({ status: 'completed', added: 0, failed: 1 });
    expect(run.details.failures).toEqual([
      { path: 'logs/huge.html', error: `The file (${LARGE} bytes) is larger than this server's upload limit of ${LARGE - 1} bytes` },
    ]);
    expect(p.streams).toBe(0);
    expect((await dossierContext(node).store.listDocuments(collectionId, { limit: 10, offset: 0 })).total).toBe(0);
  });

  it('that grows past the limit while streamed stops at the limit and leaves nothing behind', async () => {
    const limit = LARGE + CHUNK;
    const p = probe('logs/growing.html', LARGE, limit + 4 * CHUNK);
    const node = await nodeWith(p, limit);
    const { run, collectionId } = await runOnce(node);
    expect(run).toMatchObject({ status: 'completed', added: 0, failed: 1 });
    expect(run.details.failures[0]?.error).toBe(`The file is larger than this server's upload limit of ${limit} bytes`);
    // Reading stopped once past the limit: at most one chunk more than it.
    expect(p.streamed).toBeLessThanOrEqual(limit + CHUNK);
    const ctx = dossierContext(node);
    expect((await ctx.store.listDocuments(collectionId, { limit: 10, offset: 0 })).total).toBe(0);
    const c = await ctx.store.getCollection(collectionId);
    expect(await ctx.blobs.sizeOfPrefix(`${c!.env}/${c!.projectId}/${c!.id}/`)).toBe(0);
  });
});
