import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossier, ndjson, spawnDossier, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let home: { home: string; cleanup: () => void };
beforeAll(async () => {
  t = await startTestServer();
  home = tempHome();
});
afterAll(async () => {
  home?.cleanup();
  await t?.close();
});

const env = () => ({ SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey });

describe.concurrent('watch', () => {
  it('tails the status events of a collection (NDJSON with --json) and exits 0 on Ctrl-C', async () => {
    const cid = (await t.createCollection({ name: 'Tailed' })).id;
    const w = await spawnDossier(home.home, ['watch', '-c', cid, '--json'], { env: env() });
    await w.until('stderr', /watching collection/);
    const doc = await t.upload(cid, 'tailed.md', '# Tailed\n\nWatched while it was processed.\n');
    await w.until('stdout', /"status":"ready"/);
    w.child.kill('SIGINT');
    expect(await w.exit()).toBe(0);
    const events = ndjson(w.output.stdout);
    for (const e of events)
      expect(Object.keys(e).sort()).toEqual(
        e.status === 'sectioned' ? ['collectionId', 'documentId', 'env', 'sectionCount', 'status'] : ['collectionId', 'documentId', 'env', 'status'],
      );
    expect(events.every((e) => e.documentId === doc.id && e.collectionId === cid)).toBe(true);
    expect(events.map((e) => e.status)).toEqual(expect.arrayContaining(['processing', 'sectioned', 'ready']));
  });

  it('names documents by filename in its human output', async () => {
    const cid = (await t.createCollection({ name: 'Tailed by name' })).id;
    const w = await spawnDossier(home.home, ['watch', '-c', cid], { env: env() });
    await w.until('stderr', /watching collection/);
    await t.upload(cid, 'named.md', '# Named\n\nShown by its filename.\n');
    await w.until('stdout', /named\.md +ready/);
    w.child.kill('SIGINT');
    expect(await w.exit()).toBe(0);
    expect(w.output.stdout).toMatch(/^\d\d:\d\d:\d\d {2}named\.md +sectioned {2}1 section$/m);
  });

  it('stops with exit 3 for an unknown collection instead of retrying', async () => {
    const r = await dossier(home.home, ['watch', '-c', '00000000-0000-4000-8000-000000000000'], { env: env() });
    expect(r.code).toBe(3);
  });
});

describe('watch when the connection drops', () => {
  let fake: Server;
  let url: string;
  let connections = 0;
  const event = (res: ServerResponse, status: string) => res.write(`data: ${JSON.stringify({ documentId: 'd1', collectionId: 'c1', status })}\n\n`);

  beforeAll(async () => {
    // A stand-in server whose first event stream breaks off mid-way (socket destroyed), as a restart or a proxy would.
    fake = createServer((req, res) => {
      if (req.url?.startsWith('/v1/collections/')) {
        connections++;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': connected\n\n');
        if (connections === 1) {
          event(res, 'processing');
          // A real wait is the behaviour: the client reads this event first (the server cannot see it read), then the drop.
          setTimeout(() => res.socket?.destroy(), 100);
        } else {
          event(res, 'ready');
        }
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'd1', filename: 'dropped.md' }));
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    fake.closeAllConnections();
    await new Promise<void>((r) => fake.close(() => r()));
  });

  it('reconnects by itself with backoff and goes on printing events', async () => {
    const w = await spawnDossier(home.home, ['watch', '-c', '00000000-0000-4000-8000-0000000000c1', '--json'], {
      env: { SERVICE_BASE_URL: url, SERVICE_API_KEY: 'dsk_live_fake' },
    });
    await w.until('stdout', /"status":"ready"/);
    w.child.kill('SIGINT');
    expect(await w.exit()).toBe(0);
    expect(ndjson(w.output.stdout).map((e) => e.status)).toEqual(['processing', 'ready']);
    expect(w.output.stderr).toMatch(/connection lost .*reconnecting in 0\.5 s/);
    expect(w.output.stderr).toContain('reconnected');
    expect(connections).toBe(2);
  });
});
