import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostApp, startHostApp } from './index.ts';

let app: HostApp;
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-mount-in-koa-'));

beforeAll(async () => {
  app = await startHostApp(dataDir);
});
afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const as = (token: string | null, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string> | undefined) },
});
const json = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('examples/mount-in-koa', () => {
  it("serves the host's own routes next to the mounted API", async () => {
    const res = await fetch(`${app.url}/hello`, as('alice-session'));
    expect(await res.json()).toEqual({ hello: 'alice' });
    expect((await fetch(`${app.url}/search/v1/health`)).status).toBe(200);
  });

  it('lets a user the host signed in create, upload to and search a collection under its prefix', async () => {
    const created = await fetch(`${app.url}/search/v1/collections`, as('alice-session', json({ projectId: app.projectId, name: 'host notes' })));
    expect(created.status).toBe(201);
    const collection = (await created.json()) as { id: string };
    const form = new FormData();
    form.append('file', new Blob(['# Tides\n\nThe moon pulls the ocean, which makes tides.\n']), 'tides.md');
    const uploaded = await fetch(`${app.url}/search/v1/collections/${collection.id}/documents`, as('bob-session', { method: 'POST', body: form }));
    expect(uploaded.status).toBe(202); // accepted: ingestion runs in the background
    await app.dossier.idle();
    const query = await fetch(`${app.url}/search/v1/collections/${collection.id}/query`, as('alice-session', json({ q: 'moon and ocean' })));
    expect(query.status).toBe(200);
    const results = (await query.json()) as { document: { filename: string } }[];
    expect(results.map((r) => r.document.filename)).toEqual(['tides.md']);
  });

  it("applies Dossier's access rules behind the host: a caller it does not vouch for needs a Dossier key", async () => {
    const anonymous = await fetch(`${app.url}/search/v1/collections`, as(null));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: expect.stringMatching(/API key is required/) });
    const unknown = await fetch(`${app.url}/search/v1/collections`, as('mallory-session'));
    expect(unknown.status).toBe(401);
    expect((await fetch(`${app.url}/v1/collections`, as('alice-session'))).status).toBe(404); // only under the prefix
  });
});
