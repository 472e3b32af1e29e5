import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@dossier/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createDossier } from '../src/create-dossier.ts';
import { createSqliteJobQueue } from '../src/sqlite/job-queue.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a document whose ingestion worker dies on every attempt', () => {
  it('ends in error with a message saying so, instead of staying half-processed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-abandoned-'));
    dirs.push(dataDir);
    // Upload with no workers running, so the ingestion job waits on the queue.
    const uploader = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 0 } });
    const local = await uploader.local();
    const collection = await local.collections.create({ name: 'crashes' });
    const doc = await local.documents.add(collection.id, { filename: 'poison.md', bytes: new TextEncoder().encode('# Poison\n\nKills its worker.\n') });
    await uploader.close();

    // Every attempt is claimed by a worker that dies holding it: the lease just runs out.
    const queue = createSqliteJobQueue({ filename: join(dataDir, 'jobs.db') });
    let attempts = 0;
    let claimed = await queue.claim(['ingest.convert'], 'dead-worker-1', 20);
    while (claimed) {
      attempts = claimed.attempts;
      if (attempts === claimed.maxAttempts) break;
      const owner = `dead-worker-${attempts + 1}`;
      claimed = await waitFor(() => queue.claim(['ingest.convert'], owner, 20), 'the lease to run out, so the job is claimed again', 5000, 10);
    }
    queue.close();
    expect(attempts).toBeGreaterThan(1);

    // A live worker finds the final attempt's lease expired (20 ms, or once it has): the job is given up and the document fails.
    const worker = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 1, pollMs: 20 } });
    try {
      const workerLocal = await worker.local();
      const now = await waitFor(
        async () => {
          const current = await workerLocal.documents.get(doc.id);
          return current.status === 'error' && current;
        },
        'the document to end in error',
        20_000,
      );
      expect(now).toMatchObject({
        status: 'error',
        errorMessage: `Processing stopped before it finished on all ${attempts} attempts (the worker running it crashed or was stopped); retry the document`,
      });
    } finally {
      await worker.close();
    }
  });
});
