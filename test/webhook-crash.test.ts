import type { ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapCredentials, startServer } from './server-process.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions that read them
const body = async (res: Promise<Response>): Promise<any> => (await res).json();

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a server killed with SIGKILL mid-delivery', () => {
  const cleanups: (() => void)[] = [];
  const procs: ChildProcess[] = [];
  afterEach(() => {
    for (const p of procs.splice(0)) p.kill('SIGKILL');
    for (const c of cleanups.splice(0)) c();
  });

  it('delivers every event after a restart (at least once, same event ids, valid signatures)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-hook-crash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // The receiver holds every request open (the server dies mid-delivery) until `answering` is set.
    let answering = false;
    let secret = '';
    const seen: { id: string; valid: boolean; answered: boolean }[] = [];
    const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const expected = createHmac('sha256', secret).update(Buffer.concat(chunks)).digest();
        const given = Buffer.from(String(req.headers['x-service-signature'] ?? '').replace(/^sha256=/, ''), 'hex');
        const valid = given.length === expected.length && timingSafeEqual(given, expected);
        seen.push({ id: String(req.headers['x-service-event-id']), valid, answered: answering });
        if (answering) res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(() => {
      receiver.closeAllConnections();
      receiver.close();
    });
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const args = ['--webhooks-allow-http-loopback', 'true', '--webhook-retry-base-ms', '200'];

    let server = await startServer(dataDir, args);
    procs.push(server.proc);
    const creds = bootstrapCredentials(dataDir);
    const auth = { Authorization: `Bearer ${creds.live_api_key}`, 'content-type': 'application/json' };
    const hooks = `/v1/orgs/${creds.org_id}/projects/${creds.project_id}/webhooks`;
    const endpoint = await body(fetch(`${server.url}${hooks}`, { method: 'POST', headers: auth, body: JSON.stringify({ url: hookUrl }) }));
    secret = endpoint.secret;
    const col = await body(fetch(`${server.url}/v1/collections`, { method: 'POST', headers: auth, body: JSON.stringify({ projectId: creds.project_id, name: 'hooks' }) }));
    const docIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const form = new FormData();
      form.append('file', new Blob([`# Note ${i}\n\nbody ${i}\n`]), `note-${i}.md`);
      docIds.push((await body(fetch(`${server.url}/v1/collections/${col.id}/documents`, { method: 'POST', headers: { Authorization: auth.Authorization }, body: form }))).id);
    }
    for (const id of docIds) expect((await body(fetch(`${server.url}/v1/documents/${id}/wait`, { headers: auth }))).status).toBe('ready');
    await until('a delivery in flight', () => seen.length >= 1);
    server.proc.kill('SIGKILL');
    await new Promise((r) => server.proc.once('exit', r));
    receiver.closeAllConnections();
    answering = true;

    server = await startServer(dataDir, args);
    procs.push(server.proc);
    const deliveriesUrl = `${server.url}${hooks}/${endpoint.id}/deliveries`;
    await until('every delivery to succeed', async () => {
      const rows = await body(fetch(deliveriesUrl, { headers: auth }));
      return rows.length === 5 && rows.every((d: { status: string }) => d.status === 'success');
    });
    const rows = await body(fetch(deliveriesUrl, { headers: auth }));
    expect(rows.map((d: { payload: { data: { documentId: string } } }) => d.payload.data.documentId).sort()).toEqual([...docIds].sort());
    const answeredIds = new Set(seen.filter((s) => s.answered).map((s) => s.id));
    expect([...answeredIds].sort()).toEqual(rows.map((d: { id: string }) => d.id).sort());
    expect(seen.every((s) => s.valid)).toBe(true);
    // The attempt that was in flight when the server died was made again under the same event id.
    expect(answeredIds.has(seen[0]!.id)).toBe(true);
  }, 120_000);
});
