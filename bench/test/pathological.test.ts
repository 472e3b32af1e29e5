import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier, type Dossier } from '@dossier/adapters';
import type { ScopedDossier } from '@dossier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathologicalFiles } from '../ingest/pathological.ts';

/**
 * The pathological inputs of bench/ingest, at a twentieth of their size (the bench runs them full size and times
 * the API beside them), through the real pipeline and worker pools: each ends ready or error with a message.
 */
describe('pathological files through the real pipeline and worker pools', () => {
  let dir: string;
  let dossier: Dossier;
  let local: ScopedDossier;
  const outcomes = new Map<string, { status: string; errorMessage: string | null; chunkCount: number | null }>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-pathological-'));
    dossier = await createDossier({ dataDir: dir, embeddingModel: 'none', allowModelDownload: false, workers: { concurrency: 4 } });
    local = await dossier.local();
    const c = await local.collections.create({ name: 'pathological' });
    const docs = [];
    for (const f of pathologicalFiles(0.05)) docs.push(await local.documents.upload(c.id, { filename: f.name, bytes: f.bytes }));
    for (const doc of docs) {
      const done = await local.documents.wait(doc.id, 240_000);
      outcomes.set(done.filename, { status: done.status, errorMessage: done.errorMessage, chunkCount: done.chunkCount });
    }
  }, 300_000);

  afterAll(async () => {
    await dossier?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('brings every file to ready or to error with a message', () => {
    expect([...outcomes.keys()].sort()).toEqual(
      pathologicalFiles(0.001)
        .map((f) => f.name)
        .sort(),
    );
    for (const [name, o] of outcomes) {
      expect(['ready', 'error'], name).toContain(o.status);
      if (o.status === 'error') expect(o.errorMessage, name).toMatch(/\w{4,}/);
    }
  });

  it('indexes the one-token line, the headings, the CSV and the nested list', () => {
    for (const name of ['one-token.md', 'headings.md', 'rows.csv', 'nested-list.md']) {
      expect(outcomes.get(name), name).toMatchObject({ status: 'ready' });
      expect(outcomes.get(name)?.chunkCount, name).toBeGreaterThan(0);
    }
  });

  it('still ingests an ordinary document afterwards', async () => {
    const c = await local.collections.create({ name: 'after' });
    const doc = await local.documents.upload(c.id, { filename: 'ok.md', bytes: new TextEncoder().encode('# Fine\n\nAn ordinary note.\n') });
    expect((await local.documents.wait(doc.id, 60_000)).status).toBe('ready');
  });
});
