import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from './helpers.ts';

/**
 * Issue 33, finding 6e: an anonymous GET /v1/collections/:id of a public collection returned the whole record,
 * research instructions and model settings included, though the spec opens only query, section scan and document
 * reads to anonymous callers. Anyone but the owner now gets the PublicCollection view.
 */

const PUBLIC_KEYS = ['createdAt', 'description', 'docCount', 'id', 'name', 'totalSections', 'visibility'];

let t: TestServer;
let cid: string;
let otherKey: string;
beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Open data', description: 'Published reports', visibility: 'public' })).id;
  const patched = await t.request('PATCH', `/v1/collections/${cid}`, {
    json: { instructions: 'Never mention the codename Bluebird.', llmModel: 'claude-sonnet-4-6' },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  await t.ingest(cid, 'report.md', '# Report\n\n## One\n\nfirst\n\n## Two\n\nsecond\n');
  otherKey = (await t.server.dossier.auth.bootstrap('stranger@example.test', 'a stranger password'))!.liveKey;
});
afterAll(async () => {
  await t?.close();
});

describe('GET /v1/collections/:id of a public collection', () => {
  it('gives its owner the whole collection', async () => {
    const res = await t.request('GET', `/v1/collections/${cid}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: cid,
      instructions: 'Never mention the codename Bluebird.',
      llmModel: 'claude-sonnet-4-6',
      chunkSize: expect.any(Number),
    });
  });

  it.each([
    ['an anonymous caller', null],
    ["another project's key", 'other'],
    ["the owner project's test key (another sandbox)", 'test'],
  ])('gives %s only the public view: no instructions, models or pipeline settings', async (_who, auth) => {
    const key = auth === null ? null : auth === 'other' ? otherKey : t.testKey;
    const res = await t.request('GET', `/v1/collections/${cid}`, { auth: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PUBLIC_KEYS);
    expect(res.body).toMatchObject({
      id: cid,
      name: 'Open data',
      description: 'Published reports',
      visibility: 'public',
      docCount: 1,
      totalSections: expect.any(Number),
    });
    expect(res.body.totalSections).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(res.body)).not.toContain('Bluebird');
  });

  it('still answers 401 to an anonymous caller of a private collection', async () => {
    const secret = (await t.createCollection({ name: 'Private' })).id;
    expectError(await t.request('GET', `/v1/collections/${secret}`, { auth: null }), 401);
  });
});
