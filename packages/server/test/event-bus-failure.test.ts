import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier, createRedisEventBus } from '@dossier/adapters';
import { silentLogger } from '@dossier/core';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';

/**
 * Issue 35: a Redis SUBSCRIBE that fails must surface. The stream is refused with 503 instead of answering 200 and
 * then never delivering an event; the server keeps serving. Redis refuses here for real: the bus connects as an ACL
 * user allowed no channels.
 */

const REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const dirs: string[] = [];

/** One Redis command over RESP (the server package does not depend on a Redis client); resolves with the raw reply. */
function redisCommand(url: string, ...args: string[]): Promise<string> {
  const { hostname, port } = new URL(url);
  const request = `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) }, () => socket.write(request));
    socket.once('data', (reply) => {
      socket.end();
      resolve(reply.toString());
    });
    socket.once('error', reject);
  });
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('document events when Redis refuses the subscription', () => {
  it('answers 503 and opens no stream; the server keeps serving', async () => {
    const user = `dossier-test-${randomUUID()}`;
    expect(await redisCommand(REDIS_URL, 'ACL', 'SETUSER', user, 'on', '>secret', '~*', '+@all', 'resetchannels')).toBe('+OK\r\n');
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-bus-failure-'));
    dirs.push(dataDir);
    const events = await createRedisEventBus(REDIS_URL.replace('redis://', `redis://${user}:secret@`), `test-${randomUUID()}:`);
    const dossier = await createDossier({ dataDir, embeddingModel: 'none', events });
    const config = Object.freeze({ ...loadConfig([], {}), port: 0, dataDir, adminEmail: 'owner@example.com' });
    const server = await startServer(config, { dossier, log: silentLogger });
    const headers = { authorization: `Bearer ${server.bootstrap?.liveKey}`, 'content-type': 'application/json' };
    try {
      const created = await fetch(`${server.url}/v1/collections`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ projectId: server.bootstrap?.projectId, name: 'bus' }),
      });
      expect(created.status).toBe(201);
      const collection = (await created.json()) as { id: string };
      const stream = await fetch(`${server.url}/v1/collections/${collection.id}/documents/events`, { headers });
      expect(stream.status).toBe(503);
      expect(stream.headers.get('content-type')).toMatch(/application\/json/);
      expect(await stream.json()).toEqual({ error: expect.stringMatching(/unavailable/) });
      expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    } finally {
      await server.close();
      await dossier.close();
      await redisCommand(REDIS_URL, 'ACL', 'DELUSER', user);
    }
  });
});
