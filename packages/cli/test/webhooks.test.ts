import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossier, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let dir: string;
let home: { home: string; cleanup: () => void };

beforeAll(async () => {
  t = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'dossier-cli-hooks-'));
  home = tempHome();
});
afterAll(async () => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

const run = (args: string[]) =>
  dossier(home.home, args, { env: { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey, SERVICE_PROJECT_ID: t.projectId, SERVICE_ORG_ID: t.orgId } });

describe('dossier webhooks', () => {
  it('creates, lists, updates, shows deliveries of and deletes an endpoint', async () => {
    // No document is ingested here, so nothing is ever sent to this address.
    const created = await run([
      'webhooks',
      'create',
      'https://hooks.invalid/dossier',
      '--events',
      'document.ready,document.error',
      '--description',
      'cli',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const endpoint = JSON.parse(created.stdout);
    expect(endpoint.secret).toMatch(/^[0-9a-f]{64}$/);
    const list = await run(['webhooks', 'list']);
    expect(list.stdout).toMatch(new RegExp(`^${endpoint.id} +on +https://hooks.invalid/dossier +document.ready,document.error +cli`, 'm'));
    expect(list.stdout).not.toContain(endpoint.secret);
    const updated = await run(['webhooks', 'update', endpoint.id, '--disable', '--events', 'all', '--json']);
    expect(JSON.parse(updated.stdout)).toMatchObject({ enabled: false, events: [] });
    expect((await run(['webhooks', 'deliveries', endpoint.id])).stderr).toMatch(/no deliveries/);
    expect((await run(['webhooks', 'create', 'http://example.com'])).code).not.toBe(0);
    expect((await run(['webhooks', 'delete', endpoint.id])).code).toBe(0);
    expect((await run(['webhooks', 'delete', endpoint.id])).code).toBe(3);
  });

  it('verifies a saved body against its signature and secret, offline', async () => {
    const secret = 'ab'.repeat(32);
    const body = '{"id":"x","type":"document.ready","created":1,"data":{}}';
    writeFileSync(join(dir, 'body.json'), body);
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const good = await run(['webhooks', 'verify', '--body', join(dir, 'body.json'), '--signature', signature, '--secret', secret]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout + good.stderr).toMatch(/valid/);
    const bad = await run(['webhooks', 'verify', '--body', join(dir, 'body.json'), '--signature', signature, '--secret', 'cd'.repeat(32)]);
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/INVALID/);
  });
});
