import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer, waitFor } from './helpers.ts';

let t: TestServer;
let cid: string;
let otherKey: string;
const docs: Record<string, string> = {};

const MEMO = '# Memo\n\nThe quarterly review moved to Thursday morning because the finance team travels on Monday and Tuesday. Please bring the updated forecasts and the staffing plan for the new warehouse in Ghent.\n';

beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Memos' })).id;
  await t.request('PATCH', `/v1/collections/${cid}`, { json: { enableDeduplication: true, enableSummarization: false, enableCaptioning: false } });
  docs.memo = (await t.ingest(cid, 'memo.md', MEMO)).id;
  docs.forward = (await t.ingest(cid, 'Fwd memo.txt', `Forwarded message\n\n${MEMO.replace('# Memo\n\n', '')}`)).id;
  docs.other = (await t.ingest(cid, 'lunch.md', '# Lunch\n\nThe canteen serves soup on Wednesdays and pasta on Fridays for everyone in the building.\n')).id;
  await t.server.dossier.idle();
  otherKey = (await t.server.dossier.auth.bootstrap('dups-other@example.test', 'another long password'))!.liveKey;
});
afterAll(async () => {
  await t?.close();
});

describe('duplicates over HTTP', () => {
  it('lists the group formed at ingestion, with coverage both ways, and hides the copy from query', async () => {
    const res = await t.request('GET', `/v1/collections/${cid}/duplicates`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    const [group] = res.body.items;
    expect(Object.keys(group).sort()).toEqual(['canonicalDocumentId', 'detectedAt', 'id', 'members']);
    expect(group.members.map((member: { filename: string }) => member.filename).sort()).toEqual(['Fwd memo.txt', 'memo.md']);
    const nearDuplicate = group.members.find((member: { relationship: string }) => member.relationship === 'near_duplicate');
    expect(nearDuplicate.coverageToCanonical).toBeGreaterThan(0.8);
    const hits = await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'quarterly review Thursday forecasts' } });
    expect(new Set(hits.body.map((hit: { document: { id: string } }) => hit.document.id)).size).toBe(1);
    expect((await t.request('GET', `/v1/documents/${nearDuplicate.documentId}`)).body.canonical).toBe(false);
    expectError(await t.request('GET', `/v1/collections/${cid}/duplicates?limit=0`), 400);
  });

  it('promotes with PATCH and disbands with DELETE', async () => {
    const [group] = (await t.request('GET', `/v1/collections/${cid}/duplicates`)).body.items;
    const other = group.members.find((member: { relationship: string }) => member.relationship === 'near_duplicate').documentId;
    const promoted = await t.request('PATCH', `/v1/collections/${cid}/duplicates/${group.id}`, { json: { canonicalDocumentId: other } });
    expect(promoted.body).toEqual({ success: true, changed: true });
    expectError(await t.request('PATCH', `/v1/collections/${cid}/duplicates/${group.id}`, { json: { canonicalDocumentId: docs.other } }), 400);
    const disbanded = await t.request('DELETE', `/v1/collections/${cid}/duplicates/${group.id}`);
    expect(disbanded.body).toEqual({ success: true, groupId: group.id, members: 2 });
    expect((await t.request('GET', `/v1/collections/${cid}/duplicates`)).body.total).toBe(0);
    expectError(await t.request('DELETE', `/v1/collections/${cid}/duplicates/${group.id}`), 404);
  });

  it('runs a detection (202, then the run), and answers 409 while one is in flight', async () => {
    const started = await t.request('POST', `/v1/collections/${cid}/duplicates/detect`);
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ runId: expect.any(String), status: 'pending', jobsEnqueued: 2, enqueuedAt: expect.any(String) });
    const again = await t.request('POST', `/v1/collections/${cid}/duplicates/detect`);
    if (again.status !== 202) expectError(again, 409);
    const run = await waitFor(async () => {
      const latest = await t.request('GET', `/v1/collections/${cid}/duplicates/runs/latest`);
      return latest.body.status === 'completed' ? latest.body : null;
    }, 'the detection run');
    expect(run).toMatchObject({ jobsProcessed: 2, duplicatesDetected: 0, duplicateGroupsCreated: 0 }); // the disbanded pair stays apart
  });

  it('needs this project\'s API key', async () => {
    for (const [method, path] of [['GET', `/v1/collections/${cid}/duplicates`], ['POST', `/v1/collections/${cid}/duplicates/detect`], ['GET', `/v1/collections/${cid}/duplicates/runs/latest`]] as const) {
      expectError(await t.request(method, path, { auth: null }), 401);
      expectError(await t.request(method, path, { auth: otherKey }), 404);
    }
  });
});
