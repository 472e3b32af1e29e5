import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@dossier/core';
import { dossierContext } from '@dossier/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type ServerConfig } from '../src/config.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import type { Json } from './helpers.ts';

/**
 * `--role api|worker|all` (issue 13): an API node enqueues but runs no job, a worker runs jobs and answers only health
 * checks. Here both share one data directory (SQLite and LanceDB are safe for several processes on one machine) and
 * Redis, through which the worker's document events reach the API node's waiters.
 */
const REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-roles-'));
const started: RunningServer[] = [];
afterAll(async () => {
  for (const node of started.reverse()) await node.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const prefix = `test-${randomUUID()}:`;
function nodeConfig(role: ServerConfig['role'], extra: Partial<ServerConfig> = {}): Readonly<ServerConfig> {
  return Object.freeze({
    ...loadConfig([], {}),
    role,
    host: '127.0.0.1',
    port: 0,
    dataDir,
    embeddingModel: 'none',
    allowModelDownload: false,
    logLevel: 'silent' as const,
    adminEmail: 'admin@example.test',
    adminPassword: 'correct horse battery staple',
    workers: 2,
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    ...extra,
  });
}
async function start(config: Readonly<ServerConfig>): Promise<RunningServer> {
  const node = await startServer(config, { log: silentLogger });
  started.push(node);
  return node;
}

describe('server roles', () => {
  it('refuses to start an api or worker node without Redis, naming the setting', async () => {
    await expect(startServer(nodeConfig('api', { redisUrl: null }), { log: silentLogger })).rejects.toThrow(/DOSSIER_REDIS_URL/);
    await expect(startServer(nodeConfig('worker', { redisUrl: null }), { log: silentLogger })).rejects.toThrow(/DOSSIER_REDIS_URL/);
  });

  it('an api node queues an upload without running it; a worker started later runs it and the api node sees it ready', async () => {
    const api = await start(nodeConfig('api'));
    const key = api.bootstrap!.liveKey;
    const call = async (method: string, path: string, body?: string, type = 'application/json') => {
      const res = await fetch(`${api.url}${path}`, { method, body, headers: { authorization: `Bearer ${key}`, 'content-type': type } });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const collection = (await call('POST', '/v1/collections', JSON.stringify({ projectId: api.bootstrap!.projectId, name: 'roles' }))).body;
    const form = new FormData();
    form.set('file', new Blob(['# Roles\n\nThe worker node converts this file.\n']), 'roles.md');
    const res = await fetch(`${api.url}/v1/collections/${collection.id}/documents`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${key}` },
    });
    const doc = (await res.json()) as Json;
    expect(res.status).toBe(202);
    await api.dossier.idle(); // no runner on an API node: idle at once, with the job still queued
    expect(await dossierContext(api.dossier).queue.counts()).toMatchObject({ queued: 1, running: 0 });

    const worker = await start(nodeConfig('worker'));
    expect(worker.bootstrap).toBeNull();
    const ready = await call('GET', `/v1/documents/${doc.id}/wait`);
    expect(ready.body).toMatchObject({ id: doc.id, status: 'ready' });
    const hits = await call('POST', `/v1/collections/${collection.id}/query`, JSON.stringify({ q: 'worker converts' }));
    expect(hits.body[0].document.id).toBe(doc.id);
  });

  it('a worker node answers its health check and nothing of the API', async () => {
    const worker = started.find((n) => n.role === 'worker') ?? (await start(nodeConfig('worker')));
    const health = await fetch(`${worker.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', role: 'worker' });
    const api = await fetch(`${worker.url}/v1/collections`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: expect.stringContaining('worker node') });
  });
});
