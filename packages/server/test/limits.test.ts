/**
 * Usage, plans, rate limits and login throttling over HTTP (issue 9): a real server with its limits switched on,
 * a plans file, and for the shared store two servers counting in the Redis on this machine.
 */
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, rawRequest, waitFor, startTestServer, type TestServer, uploadForm } from './helpers.ts';

const REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MINUTE = 60_000;

/** The anonymous limit of these servers: 40 a minute plus a burst reserve of 10 (logins are anonymous requests too). */
const ANONYMOUS = { points: 40, durationMs: MINUTE, burst: 10 };

async function query(t: TestServer, cid: string, auth?: string | null) {
  return t.request('POST', `/v1/collections/${cid}/query`, { auth, json: { q: 'cats' } });
}

// Order matters within this describe: the login and bad-key tests run before the anonymous burst spends the address's budget.
describe('usage meters, quotas and rate limits', () => {
  let t: TestServer;
  let publicId: string;
  let planned: TestServer;

  beforeAll(async () => {
    t = await startTestServer({
      config: {
        rateLimitAnonymous: ANONYMOUS,
        loginLimitAccount: { points: 10, durationMs: 15 * MINUTE, burst: 0 },
        authFailureLimitAddress: { points: 40, durationMs: 15 * MINUTE, burst: 0 },
      },
    });
    publicId = (await t.createCollection({ name: 'open', visibility: 'public' })).id;
    await t.ingest(publicId, 'cats.md', '# Cats\n\nCats sleep most of the day.\n');
  });
  afterAll(async () => {
    await t?.close();
    await planned?.close();
  });

  it('reports the sandbox meters in the spec shape, unlimited by default, live and test apart', async () => {
    const before = await t.request('GET', '/v1/usage');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      meters: {
        queries: { used: expect.any(Number), limit: null },
        credits: { used: 0, limit: null },
        storage: { usedMb: expect.any(Number), limitMb: null },
      },
    });
    expect(before.body.meters.storage.usedMb).toBeGreaterThan(0);
    expect((await query(t, publicId)).status).toBe(200);
    const after = await t.request('GET', '/v1/usage');
    expect(after.body.meters.queries.used).toBe(before.body.meters.queries.used + 1);
    const sandbox = await t.request('GET', '/v1/usage', { auth: t.testKey });
    expect(sandbox.body.meters).toEqual({ queries: { used: 0, limit: null }, credits: { used: 0, limit: null }, storage: { usedMb: 0, limitMb: null } });
    expectError(await t.request('GET', '/v1/usage', { auth: null }), 401);
  });

  it('throttles 29 wrong passwords per account with 429, refusing even the right one until the window ends (issue 9)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 29; i++) {
      statuses.push((await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: `wrong ${i}` } })).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(19).fill(429));
    const right = await t.request('POST', '/auth/login', { auth: null, json: { email: t.email.toUpperCase(), password: t.password } });
    expectError(right, 429, /failed logins for this account/);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(800);
  });

  it('answers 429 to an address whose invalid keys keep failing, while a valid key from it still works', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await t.request('GET', '/v1/collections', { auth: `dsk_live_${'x'.repeat(40)}${i}` })).status);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(10);
    expect(statuses.at(-1)).toBe(429);
    expect((await t.request('GET', '/v1/collections')).status).toBe(200);
  });

  it('limits a burst of 300 anonymous queries per address with 429 and Retry-After, metering none to the owner (issue 9)', async () => {
    const owner = (await t.request('GET', '/v1/usage')).body.meters.queries.used;
    const answers = await Promise.all(Array.from({ length: 300 }, () => query(t, publicId, null)));
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(300);
    expect(ok.length).toBeLessThanOrEqual(ANONYMOUS.points + ANONYMOUS.burst);
    expect(refused.length).toBeGreaterThanOrEqual(300 - ANONYMOUS.points - ANONYMOUS.burst);
    const retryAfter = Number(refused[0]?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectError(refused[0]!, 429, /anonymous requests/);
    expect((await t.request('GET', '/v1/usage')).body.meters.queries.used).toBe(owner);
    // The owner's key has its own bucket: the strangers' burst does not block it.
    expect((await query(t, publicId)).status).toBe(200);
    // Once refused, the address is refused before Koa runs (cheap), with the same answer, and logged once a second.
    const before = t.server.limits.refusedEarly();
    const early = await query(t, publicId, null);
    expectError(early, 429, /anonymous requests from this address/);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(early.headers.get('x-content-type-options')).toBe('nosniff');
    expect(t.server.limits.refusedEarly()).toBe(before + 1);
    await waitFor(async () => t.logged.some((line) => line.msg === 'requests refused early') || null, 'the early-refusal log line', 5000);
  });

  it('enforces the plans file: 429 past the monthly query limit, 402 past the document and collection quotas', async () => {
    const planFile = `${t.dataDir}-plans.json`;
    writeFileSync(
      planFile,
      JSON.stringify({ plans: { small: { queries: 2, documents: 1, collections: 1, storageMb: 5, concurrentRuns: 1 } }, default: 'small' }),
    );
    planned = await startTestServer({ config: { plansFile: planFile } });
    const usage = await planned.request('GET', '/v1/usage');
    expect(usage.body.meters).toMatchObject({ queries: { used: 0, limit: 2 }, credits: { limit: null }, storage: { usedMb: 0, limitMb: 5 } });
    const cid = (await planned.createCollection()).id;
    expectError(await planned.request('POST', '/v1/collections', { json: { projectId: planned.projectId, name: 'second' } }), 402, /collection quota/);
    await planned.ingest(cid, 'a.md', '# A\n\nalpha\n');
    expectError(await planned.request('POST', `/v1/collections/${cid}/documents`, { body: uploadForm('b.md', '# B\n') }), 402, /document quota/);
    expectError(
      await planned.request('POST', `/v1/collections/${cid}/documents/upload-url`, {
        json: { filename: 'c.md', contentType: 'text/markdown', fileSizeBytes: 10 },
      }),
      402,
    );
    expect((await query(planned, cid)).status).toBe(200);
    expect((await query(planned, cid)).status).toBe(200);
    const third = await query(planned, cid);
    expectError(third, 429, /query limit/);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await planned.request('GET', '/v1/usage')).body.meters.queries).toEqual({ used: 2, limit: 2 });
    // The test sandbox has its own meters under the same plan.
    const testCid = (await planned.createCollection({}, planned.testKey)).id;
    expect((await query(planned, testCid, planned.testKey)).status).toBe(200);
  });

  it("gates an org's concurrent agent runs at its plan's cap, with a short Retry-After, and frees the slot on release", async () => {
    const limits = planned.server.dossier.limits;
    const lease = await limits.acquireRunSlot(planned.projectId, MINUTE);
    expect(lease).not.toBeNull();
    const refused = await limits.acquireRunSlot(planned.projectId, MINUTE).catch((err) => err);
    expect(refused).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/1 concurrent agent runs/) });
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(10_000);
    await limits.releaseRunSlot(lease);
    const again = await limits.acquireRunSlot(planned.projectId, MINUTE);
    expect(again).not.toBeNull();
    await limits.releaseRunSlot(again);
    // Without a plans file every org is uncapped: nothing to hold or release.
    expect(await t.server.dossier.limits.acquireRunSlot(t.projectId, MINUTE)).toBeNull();
  });
});

describe('anonymous requests at once', () => {
  let t: TestServer;
  afterAll(async () => {
    await t?.close();
  });

  it('caps the anonymous requests a node serves at once, whoever sends them, and frees the slot when one ends', async () => {
    t = await startTestServer({ config: { anonymousConcurrency: 1 } });
    const cid = (await t.createCollection({ visibility: 'public' })).id;
    // A document whose file never arrives: an anonymous wait on it stays open.
    const pending = await t.request('POST', `/v1/collections/${cid}/documents/upload-url`, {
      json: { filename: 'later.md', contentType: 'text/markdown', fileSizeBytes: 3 },
    });
    const abort = new AbortController();
    const waiting = fetch(`${t.url}/v1/documents/${pending.body.documentId}/wait`, { signal: abort.signal }).catch(() => null);
    const busy = await waitFor(
      async () => {
        const res = await query(t, cid, null);
        return res.status === 429 && res;
      },
      'the wait to hold the anonymous slot',
      5000,
    );
    expectError(busy, 429, /anonymous requests at once/);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect((await query(t, cid)).status).toBe(200); // a key is not held back by strangers
    abort.abort();
    await waiting;
    await waitFor(async () => (await query(t, cid, null)).status === 200, 'the slot to be freed', 5000);
    expect((await query(t, cid, null)).status).toBe(200);
  });
});

/** An open, idle connection to the server (resolves once connected). */
function idleConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket)).on('error', reject);
  });
}

/** Whether the server holds at least `count` connections (the per-address count is taken as each arrives). */
function openConnections(t: TestServer, count: number): Promise<boolean> {
  return new Promise((resolve, reject) => t.server.http.getConnections((err, n) => (err ? reject(err) : resolve(n >= count))));
}

describe('connections per address', () => {
  const servers: TestServer[] = [];
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    for (const server of servers) await server.close();
  });

  it('answers a connection beyond the cap with a bare 429 before its request is parsed, and admits one again once a connection closes', async () => {
    const t = await startTestServer({ config: { connectionsPerAddress: 2 } });
    servers.push(t);
    sockets.push(await idleConnection(t.url), await idleConnection(t.url));
    await waitFor(() => openConnections(t, 2), 'the server to count both', 5000);
    const { response: refused } = await rawRequest(t.url, 'GET /v1/collections HTTP/1.1\r\nHost: x\r\n\r\n', []);
    expect(refused).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
    expect(refused).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(refused).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toEqual({ error: expect.stringMatching(/Too many connections from this address/) });
    // fetch (a client a caller would use) reads the same answer.
    const viaFetch = await fetch(`${t.url}/v1/health`);
    expect(viaFetch.status).toBe(429);
    expect(viaFetch.headers.get('retry-after')).toBe('1');
    sockets.pop()!.destroy();
    await waitFor(async () => (await fetch(`${t.url}/v1/health`, { headers: { connection: 'close' } })).status === 200, 'a connection admitted again');
    expect(t.server.http.listenerCount('connection')).toBe(1);
  });

  it('closes at once with a refused connection still open (one that never sent its request)', async () => {
    const t = await startTestServer({ config: { connectionsPerAddress: 1 } });
    sockets.push(await idleConnection(t.url), await idleConnection(t.url)); // the second is refused, and waits
    await waitFor(() => openConnections(t, 2), 'the server to hold both', 5000);
    const started = performance.now();
    await t.close();
    expect(performance.now() - started).toBeLessThan(2_000); // not the 5 s a refused connection may linger
  });

  it("is off behind a trusted proxy (every connection is the proxy's) and when set to 0", async () => {
    for (const config of [{ connectionsPerAddress: 1, trustProxy: true }, { connectionsPerAddress: 0 }]) {
      const t = await startTestServer({ config });
      servers.push(t);
      sockets.push(await idleConnection(t.url), await idleConnection(t.url));
      expect((await fetch(`${t.url}/v1/health`, { headers: { connection: 'close' } })).status).toBe(200);
    }
  });
});

describe('limits shared through Redis', () => {
  const prefix = `dossier-test:${process.pid}:${Date.now()}:`;
  const nodes: TestServer[] = [];
  afterAll(async () => {
    for (const node of nodes) await node.close();
  });

  it('makes two server nodes enforce one anonymous limit', async () => {
    for (let i = 0; i < 2; i++) {
      nodes.push(
        await startTestServer({ config: { redisUrl: REDIS_URL, redisPrefix: prefix, rateLimitAnonymous: { points: 4, durationMs: MINUTE, burst: 0 } } }),
      );
    }
    const [a, b] = nodes as [TestServer, TestServer];
    const missing = '00000000-0000-4000-8000-000000000000';
    const statuses = [];
    for (const node of [a, b, a, b, a, b]) statuses.push((await query(node, missing, null)).status);
    expect(statuses).toEqual([404, 404, 404, 404, 429, 429]);
  });
});

describe('a flood of new connections', () => {
  /** One request on a fresh connection from `localAddress`; `connected` resolves once the handshake is done, `answered` with the response. */
  function floodConnection(url: string, localAddress: string) {
    const { hostname, port } = new URL(url);
    let response = '';
    let onConnected!: () => void;
    const connected = new Promise<void>((resolve) => (onConnected = resolve));
    const answered = new Promise<string>((resolve) => {
      const socket = connect({ port: Number(port), host: hostname, localAddress }, () => {
        onConnected();
        socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      });
      socket.on('data', (chunk) => (response += chunk.toString()));
      socket.on('error', () => {});
      socket.on('close', () => resolve(response));
    });
    return { connected, answered };
  }

  // 127.0.0.2 is a second local address on Linux only.
  it.runIf(process.platform === 'linux')(
    "serves another address's new connection ahead of a flood already queued from one address, then answers the whole flood",
    async () => {
      const t = await startTestServer();
      try {
        let floodAnswered = 0;
        const flood = Array.from({ length: 200 }, () => floodConnection(t.url, '127.0.0.2'));
        for (const one of flood) void one.answered.then(() => floodAnswered++);
        await Promise.all(flood.map((one) => one.connected)); // all 200 are in the server's accept queue or beyond
        const probe = await fetch(`${t.url}/v1/health`, { headers: { connection: 'close' } });
        const answeredBeforeProbe = floodAnswered;
        expect(probe.status).toBe(200);
        // libuv accepts one connection per event-loop turn: served as they are accepted, the flood would be answered
        // (nearly) whole before the probe's connection is even accepted; here only its first connections of the second are.
        expect(answeredBeforeProbe).toBeLessThan(100);
        const responses = await Promise.all(flood.map((one) => one.answered));
        expect(responses.every((response) => /^HTTP\/1\.1 (200|429) /.test(response))).toBe(true);
      } finally {
        await t.close();
      }
    },
  );
});
