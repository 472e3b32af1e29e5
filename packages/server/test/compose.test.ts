import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';
import { silentLogger } from '@dossier/core';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';

/** Issue 10's seam on the server side: startServer serves a Dossier the caller assembled, and leaves it theirs. */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('startServer(config, { dossier })', () => {
  it('serves the Dossier it is given and leaves it open when the server stops', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-compose-'));
    dirs.push(dataDir);
    const dossier = await createDossier({ dataDir, embeddingModel: 'builtin:hash-32' });
    const config = Object.freeze({ ...loadConfig([], {}), port: 0, dataDir, adminEmail: 'owner@example.com' });
    const server = await startServer(config, { dossier, log: silentLogger });
    try {
      expect(server.dossier).toBe(dossier);
      const health = await fetch(`${server.url}/v1/health`);
      expect(await health.json()).toMatchObject({ status: 'ok', defaultEmbeddingModel: 'builtin:hash-32' });
      const collections = await fetch(`${server.url}/v1/collections`, { headers: { authorization: `Bearer ${server.bootstrap?.liveKey}` } });
      expect(collections.status).toBe(200);
    } finally {
      await server.close();
    }
    const local = await dossier.local();
    expect(await local.collections.list()).toEqual([]);
    await dossier.close();
  });

  it('hands out the public API only: no adapters, secrets or context on the Dossier', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-compose-'));
    dirs.push(dataDir);
    const dossier = await createDossier({ dataDir, embeddingModel: 'none' });
    try {
      for (const internal of ['context', 'store', 'secrets', 'blobs', 'queue', 'index']) expect(dossier).not.toHaveProperty(internal);
      expect(Object.keys(dossier).sort()).toEqual([
        'agents',
        'auth',
        'claims',
        'close',
        'collections',
        'dataDir',
        'defaultEmbeddingModel',
        'documents',
        'duplicates',
        'evaluations',
        'events',
        'idempotency',
        'idle',
        'keys',
        'limits',
        'local',
        'oauth',
        'orgs',
        'people',
        'providerKeys',
        'research',
        'search',
        'sources',
        'start',
        'usage',
        'webhooks',
      ]);
    } finally {
      await dossier.close();
    }
  });
});
