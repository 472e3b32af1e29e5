import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dossier, S3SourceOpener } from '@dossier/core';
import { dossierContext, sourceRecord, sourceRunRecord, waitFor } from '@dossier/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createDossier } from '../src/create-dossier.ts';
import { databaseForTests } from './fixtures/postgres-database.ts';

/**
 * Issue 43: runs of one source never overlap, even on two nodes sharing one database (Postgres: metadata and job
 * queue). Both nodes open the source through the same instrumented opener, which counts listings in progress at once
 * (each takes a while).
 */

const dirs: string[] = [];
const nodes: Dossier[] = [];
const closeAll = async () => {
  for (const node of nodes.splice(0)) await node.close();
};
const { available, database } = await databaseForTests('dossier_source_lock', closeAll);
afterEach(async () => {
  await closeAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function instrumentedOpener(): { opener: S3SourceOpener; most: () => number; listings: () => number } {
  let active = 0;
  let most = 0;
  let listings = 0;
  const opener: S3SourceOpener = () => ({
    async list() {
      active++;
      listings++;
      most = Math.max(most, active);
      // A real wait is the behaviour: a listing long enough that a second run, were it let in, would overlap it.
      await sleep(250);
      active--;
      return [{ path: 'note.md', stamp: 'etag:1', size: 20 }];
    },
    read: async () => new TextEncoder().encode('# Note\n\nOne small note.\n'),
    async *stream() {
      yield new TextEncoder().encode('# Note\n\nOne small note.\n');
    },
    close: () => {},
  });
  return { opener, most: () => most, listings: () => listings };
}

describe('source runs on two nodes sharing one database', () => {
  it.skipIf(!available)('run one after another: the lock is in the metadata store, not in a process', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-source-lock-'));
    dirs.push(dataDir);
    const probe = instrumentedOpener();
    const node = () =>
      createDossier({
        dataDir,
        databaseUrl: database().url,
        embeddingModel: 'none',
        workers: { concurrency: 4, pollMs: 20 },
        sources: { s3: probe.opener, lockMs: 1_000 },
      });
    const a = await node();
    nodes.push(a);
    const b = await node();
    nodes.push(b);
    const collection = await (await a.local()).collections.create({ name: 'mirrored' });
    const ctxA = dossierContext(a);
    const ctxB = dossierContext(b);
    const now = new Date().toISOString();
    const source = sourceRecord(collection.id, now, {
      kind: 's3',
      location: 'bucket/',
      credentialsEncrypted: ctxA.secrets.encrypt(JSON.stringify({ accessKeyId: 'k', secretAccessKey: 's' })),
      settings: { bucket: 'bucket', prefix: '', region: 'us-east-1', forcePathStyle: 'true' },
    });
    await ctxA.store.insertSource(source);
    // Six manual runs asked at once, half through each node's queue handle (one queue: either node may take any).
    const runIds: string[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const ctx = i % 2 === 0 ? ctxA : ctxB;
        const run = sourceRunRecord(source, now);
        runIds.push(run.id);
        await ctx.store.insertSourceRun(run);
        await ctx.queue.enqueue({ type: 'source.sync', payload: { sourceId: source.id, runId: run.id, force: false }, dedupeKey: `source.sync:${run.id}` });
        ctx.wakeWorkers();
      }),
    );
    const runs = await waitFor(async () => {
      const listed = await ctxB.store.listSourceRuns(source.id, 10);
      return !listed.some((r) => r.status === 'running') && listed;
    }, 'every run to finish');
    expect(runs.map((r) => r.status)).toEqual(Array(6).fill('completed'));
    expect(probe.listings()).toBe(6);
    expect(probe.most()).toBe(1);
    // The first run added the note; the others found it there (no duplicate from two runs at once).
    expect(runs.reduce((n, r) => n + r.added, 0)).toBe(1);
    expect((await ctxA.store.listSourceManifest(collection.id, null, 10)).map((e) => e.path)).toEqual(['note.md']);
  });
});
