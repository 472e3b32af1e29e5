import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Doc, expectError, type Section, startTestServer, type TestServer, uploadForm } from './helpers.ts';
import { dossierContext } from '@dossier/core/testing';

let t: TestServer;
/** A second project in the same org, with its own live key. */
let other: { projectId: string; key: string };

beforeAll(async () => {
  t = await startTestServer();
  const projectId = crypto.randomUUID();
  await dossierContext(t.server.dossier).store.createProject({ id: projectId, orgId: t.orgId, name: 'Other project', createdAt: new Date().toISOString() });
  other = { projectId, key: await t.server.dossier.auth.createKey(projectId, 'live') };
});
afterAll(async () => {
  await t?.close();
});

const login = (json: unknown, prefix = '') => t.request('POST', `${prefix}/auth/login`, { auth: null, json });

describe('management plane: login, orgs and projects', () => {
  it('exchanges the bootstrap e-mail and password for a JWT and the user', async () => {
    for (const prefix of ['', '/v1']) {
      const res = await login({ email: t.email, password: t.password }, prefix);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['token', 'user']);
      expect(res.body.token.split('.')).toHaveLength(3);
      expect(res.body.user).toEqual({ id: expect.any(String), email: t.email });
    }
  });

  it('answers 401 with the same message for a wrong password and an unknown e-mail', async () => {
    expectError(await login({ email: t.email, password: 'wrong password' }), 401, 'Invalid email or password');
    expectError(await login({ email: 'nobody@example.test', password: t.password }), 401, 'Invalid email or password');
  });

  it('answers 400 to a login without a password', async () => {
    expectError(await login({ email: t.email }), 400, /password/);
  });

  it("lists the account's orgs and an org's projects with the JWT", async () => {
    const { token } = (await login({ email: t.email, password: t.password })).body;
    for (const prefix of ['', '/v1']) {
      const orgs = await t.request('GET', `${prefix}/orgs`, { auth: token });
      expect(orgs.status).toBe(200);
      expect(orgs.body.map((o: { id: string }) => o.id)).toEqual([t.orgId]);
      const projects = await t.request('GET', `${prefix}/orgs/${t.orgId}/projects`, { auth: token });
      expect(projects.status).toBe(200);
      expect(projects.body.map((p: { id: string }) => p.id).sort()).toEqual([t.projectId, other.projectId].sort());
    }
  });

  it('answers 401 to org routes without a token, with an API key, or with a tampered token', async () => {
    const { token } = (await login({ email: t.email, password: t.password })).body;
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const auth of [null, t.liveKey, tampered, 'not-a-jwt']) {
      expectError(await t.request('GET', '/orgs', { auth }), 401);
      expectError(await t.request('GET', `/orgs/${t.orgId}/projects`, { auth }), 401);
    }
    expectError(await t.request('GET', '/orgs', { auth: null, headers: { authorization: `Token ${token}` } }), 401, /Bearer/);
  });

  it('answers 404 for the projects of an org the account is not a member of', async () => {
    const { token } = (await login({ email: t.email, password: t.password })).body;
    expectError(await t.request('GET', `/orgs/${crypto.randomUUID()}/projects`, { auth: token }), 404, /not found/);
    expectError(await t.request('GET', '/orgs/not-a-uuid/projects', { auth: token }), 404, /not found/);
  });
});

describe('first-start files and key shapes', () => {
  it('writes the bootstrap credentials to a 0600 file in the data directory', () => {
    const file = join(t.dataDir, 'bootstrap-credentials.txt');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const v of [t.email, t.password, t.orgId, t.projectId, t.liveKey, t.testKey]) expect(text).toContain(v);
  });

  it('keeps the master key in a 0600 file of 64 hex characters', () => {
    const file = join(t.dataDir, 'master.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives live keys the dsk_live_ prefix and test keys dsk_test_', () => {
    expect(t.liveKey).toMatch(/^dsk_live_[A-Za-z0-9_-]{20,}$/);
    expect(t.testKey).toMatch(/^dsk_test_[A-Za-z0-9_-]{20,}$/);
    expect(other.key).toMatch(/^dsk_live_/);
  });

  it('never stores a key in plain text in the database (main file or write-ahead log)', () => {
    for (const name of ['dossier.db', 'dossier.db-wal']) {
      const file = join(t.dataDir, name);
      if (!existsSync(file)) continue;
      const bytes = readFileSync(file);
      expect(bytes.includes(Buffer.from(t.liveKey)), name).toBe(false);
      expect(bytes.includes(Buffer.from(t.testKey)), name).toBe(false);
    }
  });
});

describe('data plane: API keys', () => {
  it('answers 401 when the API key is missing', async () => {
    const c = await t.createCollection({ name: 'Needs key' });
    expectError(await t.request('GET', '/v1/collections', { auth: null }), 401, /API key is required/);
    expectError(await t.request('POST', '/v1/collections', { auth: null, json: { projectId: t.projectId, name: 'x' } }), 401, /API key/);
    expectError(await t.request('GET', `/v1/collections/${c.id}`, { auth: null }), 401, /API key/);
    expectError(await t.request('POST', `/v1/collections/${c.id}/query`, { auth: null, json: { q: 'x' } }), 401, /API key/);
    expectError(await t.request('POST', `/v1/collections/${c.id}/documents`, { auth: null, body: uploadForm('a.md', '# a') }), 401, /API key/);
  });

  it('answers 401 to an unknown, malformed, revoked-looking or JWT key', async () => {
    const { token } = (await login({ email: t.email, password: t.password })).body;
    const swapped = t.liveKey.replace('dsk_live_', 'dsk_test_');
    for (const key of [`dsk_live_${'x'.repeat(32)}`, 'garbage', swapped, token]) {
      expectError(await t.request('GET', '/v1/collections', { auth: key }), 401, 'Invalid API key');
    }
    expectError(await t.request('GET', '/v1/collections', { auth: null, headers: { authorization: t.liveKey } }), 401, /Bearer/);
  });

  it("answers 404 for another project's collections, documents and sections, and 403 for its projectId", async () => {
    const theirs = await t.createCollection({ name: 'Theirs', projectId: other.projectId }, other.key);
    const doc = await t.ingest(theirs.id, 'secret.md', '# Secret\n\nclassified words\n', { auth: other.key });
    const [section] = (await t.request<Section[]>('GET', `/v1/documents/${doc.id}/sections`, { auth: other.key })).body;

    const mine = (await t.request('GET', '/v1/collections')).body.map((c: { id: string }) => c.id);
    expect(mine).not.toContain(theirs.id);
    const reads: [string, string, unknown?][] = [
      ['GET', `/v1/collections/${theirs.id}`],
      ['GET', `/v1/collections/${theirs.id}/stats`],
      ['GET', `/v1/collections/${theirs.id}/documents`],
      ['POST', `/v1/collections/${theirs.id}/query`, { q: 'classified' }],
      ['POST', `/v1/collections/${theirs.id}/sections/scan`, { query: 'classified' }],
      ['POST', `/v1/collections/${theirs.id}/documents/search`, { q: 'secret' }],
      ['GET', `/v1/documents/${doc.id}`],
      ['GET', `/v1/documents/${doc.id}/markdown`],
      ['GET', `/v1/documents/${doc.id}/sections`],
      ['GET', `/v1/sections/${section!.id}`],
      ['GET', `/v1/sections/${section!.id}/chunks`],
      ['PATCH', `/v1/collections/${theirs.id}`, { name: 'mine now' }],
      ['PATCH', `/v1/collections/${theirs.id}/documents/${doc.id}`, { tags: ['x'] }],
      ['POST', `/v1/collections/${theirs.id}/documents/upload-url`, { filename: 'x.md' }],
      ['DELETE', `/v1/documents/${doc.id}`],
      ['DELETE', `/v1/collections/${theirs.id}`],
    ];
    for (const [method, path, json] of reads) expectError(await t.request(method, path, { json }), 404, /not found/);
    expectError(await t.request('POST', `/v1/collections/${theirs.id}/documents`, { body: uploadForm('x.md', '# x') }), 404, /not found/);
    expectError(await t.request('POST', '/v1/collections', { json: { projectId: other.projectId, name: 'intrude' } }), 403, /projectId/);
    // and nothing changed for the owner
    expect((await t.request('GET', `/v1/documents/${doc.id}`, { auth: other.key })).body).toMatchObject({ status: 'ready', tags: [] });
    expect((await t.request('GET', `/v1/collections/${theirs.id}`, { auth: other.key })).body.name).toBe('Theirs');
  });
});

describe('live and test sandboxes', () => {
  it('keeps test-key data out of live listings and live data out of test listings', async () => {
    const live = await t.createCollection({ name: 'Live side' });
    const test = await t.createCollection({ name: 'Test side' }, t.testKey);
    const liveIds = (await t.request('GET', '/v1/collections')).body.map((c: { id: string }) => c.id);
    const testIds = (await t.request('GET', '/v1/collections', { auth: t.testKey })).body.map((c: { id: string }) => c.id);
    expect(liveIds).toContain(live.id);
    expect(liveIds).not.toContain(test.id);
    expect(testIds).toEqual([test.id]);
  });

  it('answers 404 when a test key reads live data, while the test sandbox runs the same pipeline', async () => {
    const live = await t.createCollection({ name: 'Live data' });
    const liveDoc = await t.ingest(live.id, 'live.md', '# Live\n\nproduction words\n');
    expectError(await t.request('GET', `/v1/collections/${live.id}`, { auth: t.testKey }), 404);
    expectError(await t.request('GET', `/v1/documents/${liveDoc.id}`, { auth: t.testKey }), 404);
    expectError(await t.request('POST', `/v1/collections/${live.id}/query`, { auth: t.testKey, json: { q: 'production' } }), 404);

    const test = await t.createCollection({ name: 'Test data' }, t.testKey);
    const testDoc = await t.ingest(test.id, 'test.md', '# Test\n\nsandbox words\n', { auth: t.testKey });
    expectError(await t.request('GET', `/v1/documents/${testDoc.id}`), 404);
    const hits = await t.request('POST', `/v1/collections/${test.id}/query`, { auth: t.testKey, json: { q: 'sandbox' } });
    expect(hits.body.map((h: { document: { id: string } }) => h.document.id)).toEqual([testDoc.id]);
    expect(testDoc.markdownStorageKey?.startsWith('test/')).toBe(true);
  });
});

describe('public collections', () => {
  let pub: { id: string };
  let doc: Doc;
  let section: Section;
  beforeAll(async () => {
    pub = await t.createCollection({ name: 'Public', visibility: 'public' });
    doc = await t.ingest(pub.id, 'open.md', '# Open\n\nopen knowledge for everyone\n\n## More\n\nmore open text\n', { tags: ['open'] });
    [section] = (await t.request<Section[]>('GET', `/v1/documents/${doc.id}/sections`)).body as [Section];
  });

  it('allows unauthenticated query, scan and document reads', async () => {
    const anon = { auth: null };
    const query = await t.request('POST', `/v1/collections/${pub.id}/query`, { ...anon, json: { q: 'knowledge' } });
    expect(query.status).toBe(200);
    expect(query.body[0].document.id).toBe(doc.id);
    const scan = await t.request('POST', `/v1/collections/${pub.id}/sections/scan`, { ...anon, json: { query: 'open' } });
    expect(scan.status).toBe(200);
    expect(scan.body.results.length).toBeGreaterThan(0);
    for (const path of [
      `/v1/collections/${pub.id}`,
      `/v1/collections/${pub.id}/documents`,
      `/v1/collections/${pub.id}/tags`,
      `/v1/documents/${doc.id}`,
      `/v1/documents/${doc.id}/wait`,
      `/v1/documents/${doc.id}/markdown`,
      `/v1/documents/${doc.id}/sections`,
      `/v1/sections/${section.id}`,
      `/v1/sections/${section.id}/chunks`,
    ]) {
      expect((await t.request('GET', path, anon)).status, path).toBe(200);
    }
    expect((await t.request('POST', `/v1/collections/${pub.id}/documents/search`, { ...anon, json: { q: 'open' } })).status).toBe(200);
  });

  it('answers 401 to unauthenticated writes', async () => {
    const anon = { auth: null };
    const writes: [string, string, unknown?][] = [
      ['PATCH', `/v1/collections/${pub.id}`, { name: 'hijacked' }],
      ['DELETE', `/v1/collections/${pub.id}`],
      ['POST', `/v1/collections/${pub.id}/documents/upload-url`, { filename: 'x.md' }],
      ['PATCH', `/v1/collections/${pub.id}/documents/${doc.id}`, { tags: ['x'] }],
      ['PATCH', `/v1/collections/${pub.id}/documents/bulk`, { documents: [{ id: doc.id, tags: ['x'] }] }],
      ['DELETE', `/v1/collections/${pub.id}/documents/batch`, { ids: [doc.id] }],
      ['POST', `/v1/collections/${pub.id}/documents/retry-failed`],
      ['POST', `/v1/collections/${pub.id}/documents/batch-confirm`, { documentIds: [doc.id] }],
      ['DELETE', `/v1/documents/${doc.id}`],
      ['POST', `/v1/documents/${doc.id}/retry`],
    ];
    for (const [method, path, json] of writes) expectError(await t.request(method, path, { ...anon, json }), 401, /API key/);
    expectError(await t.request('POST', `/v1/collections/${pub.id}/documents`, { ...anon, body: uploadForm('x.md', '# x') }), 401, /API key/);
    expect((await t.request('GET', `/v1/documents/${doc.id}`)).body).toMatchObject({ tags: ['open'], status: 'ready' });
  });

  it("lets another project's key read it but not write to it", async () => {
    expect((await t.request('POST', `/v1/collections/${pub.id}/query`, { auth: other.key, json: { q: 'knowledge' } })).status).toBe(200);
    expectError(await t.request('PATCH', `/v1/collections/${pub.id}`, { auth: other.key, json: { name: 'hijacked' } }), 404);
    expectError(await t.request('DELETE', `/v1/documents/${doc.id}`, { auth: other.key }), 404);
  });

  it('still requires a key for private collections', async () => {
    const priv = await t.createCollection({ name: 'Private' });
    expectError(await t.request('POST', `/v1/collections/${priv.id}/query`, { auth: null, json: { q: 'x' } }), 401, /API key/);
    expectError(await t.request('POST', `/v1/collections/${priv.id}/sections/scan`, { auth: null, json: { query: 'x' } }), 401, /API key/);
    expectError(await t.request('GET', `/v1/collections/${priv.id}/documents`, { auth: null }), 401, /API key/);
  });
});
