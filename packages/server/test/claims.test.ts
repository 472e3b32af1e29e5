import type { ModelResolver } from '@dossier/core';
import { FakeEmbedder, isClaimExtraction, recordClaimsTurn, ScriptedModel, type ScriptedTurn, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, openSse, startTestServer, type TestServer, waitFor } from './helpers.ts';

let t: TestServer;
let cid: string;
let docA: string;
let docB: string;
let otherKey: string;
let current: ModelResolver;
const embedder = new FakeEmbedder({ dimension: 16 });

const POLICY_V1 = '# Travel policy\n\nEmployees may claim 40 euros per day for meals while travelling.\n';
const POLICY_V2 = '# Expenses\n\nThe meal allowance while travelling is 25 euros per day.\n\n## Hotels\n\nHotels are booked through the travel desk only.\n';

const userText = (request: { messages: { role: string; content: unknown }[] }) => String(request.messages.find((m) => m.role === 'user')?.content ?? '');

/** Extraction answers by document; the judge reports the two meal-allowance claims. */
const model = new ScriptedModel((request): ScriptedTurn => {
  const text = userText(request);
  if (isClaimExtraction(request)) {
    if (text.includes('40 euros'))
      return recordClaimsTurn([
        { section: 1, text: 'Meals while travelling are reimbursed at 40 euros per day.', importance: 4, sourceText: 'claim 40 euros per day for meals' },
      ]);
    return recordClaimsTurn([
      {
        section: 1,
        text: 'Meals while travelling are reimbursed at 25 euros per day.',
        importance: 5,
        sourceText: 'The meal allowance while travelling is 25 euros per day.',
      },
      { section: 2, text: 'Hotels are booked through the travel desk.', importance: 2, sourceText: 'Hotels are booked through the travel desk only.' },
    ]);
  }
  const numbers = [...text.matchAll(/^(\d+)\. .*euros/gm)].map((match) => Number(match[1]));
  return {
    toolCalls: [
      {
        name: 'report_contradictions',
        arguments: {
          topicSummary: 'Meal allowance',
          contradictions: [
            {
              claims: numbers,
              severity: 'medium',
              explanation: 'Two different daily meal allowances.',
              suggestedInstruction: 'Quote the newest expenses policy for meal allowances.',
            },
          ],
        },
      },
    ],
  };
});

beforeAll(async () => {
  t = await startTestServer({ embedders: [embedder] });
  const context = dossierContext(t.server.dossier);
  current = scriptedResolver(model);
  context.models = { resolve: (...args) => current.resolve(...args), hasProvider: (access) => current.hasProvider(access) };
  cid = (await t.createCollection({ name: 'Policies' })).id;
  await t.request('PATCH', `/v1/collections/${cid}`, { json: { enableSummarization: false, enableCaptioning: false } });
  docA = (await t.ingest(cid, 'policy-2022.md', POLICY_V1)).id;
  docB = (await t.ingest(cid, 'policy-2024.md', POLICY_V2)).id;
  await t.server.dossier.idle();
  const other = await t.server.dossier.auth.bootstrap('claims-other@example.test', 'another long password');
  otherKey = other!.liveKey;
});
afterAll(async () => {
  await t?.close();
});

describe('claims over HTTP', () => {
  it("lists a document's claims with minImportance, and the stats count them", async () => {
    const all = await t.request('GET', `/v1/documents/${docB}/claims`);
    expect(all.status).toBe(200);
    expect(all.body.documentId).toBe(docB);
    expect(all.body.claims.map((claim: { text: string; sectionTitle: string; position: number }) => [claim.position, claim.sectionTitle])).toEqual([
      [0, 'Expenses'],
      [1, 'Hotels'],
    ]);
    expect(Object.keys(all.body.claims[0]).sort()).toEqual(['documentId', 'id', 'importance', 'position', 'sectionId', 'sectionTitle', 'sourceText', 'text']);
    expect((await t.request('GET', `/v1/documents/${docB}/claims?minImportance=5`)).body.claims).toHaveLength(1);
    expectError(await t.request('GET', `/v1/documents/${docB}/claims?minImportance=9`), 400);
    const stats = await t.request('GET', `/v1/collections/${cid}/stats`);
    expect([stats.body.claimsExtractedCount, stats.body.totalClaimsCount]).toEqual([2, 3]);
  });

  it('streams the claim map: progress, then done with every claim placed in 2-D', async () => {
    const stream = await openSse(`${t.url}/v1/collections/${cid}/claims/map`, { authorization: `Bearer ${t.liveKey}` });
    expect(stream.status).toBe(200);
    const done = await stream.next((message) => message.type === 'done');
    expect(stream.messages.some((message) => (message as { type: string }).type === 'progress')).toBe(true);
    expect(done.total).toBe(3);
    expect(done.claims[0]).toMatchObject({ documentName: expect.stringMatching(/^policy-/), x: expect.any(Number), y: expect.any(Number) });
    stream.close();
  });

  it('detects, lists, aggregates by file, dismisses and applies contradictions', async () => {
    const started = await t.request('POST', `/v1/collections/${cid}/contradictions/detect`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ runId: expect.any(String), status: 'enqueued', enqueuedAt: expect.any(String) });
    const run = await waitFor(async () => {
      const latest = await t.request('GET', `/v1/collections/${cid}/contradictions/runs/latest`);
      return latest.body.status === 'completed' ? latest.body : null;
    }, 'the contradiction run');
    expect(run).toMatchObject({ id: started.body.runId, claimsProcessed: 3, contradictionsFound: 1, error: null });

    const list = await t.request('GET', `/v1/collections/${cid}/contradictions`);
    expect(list.body.total).toBe(1);
    const [item] = list.body.items;
    expect(item).toMatchObject({ severity: 'medium', status: 'active', clusterTopicSummary: 'Meal allowance' });
    expect(item.claims.map((claim: { documentId: string }) => claim.documentId).sort()).toEqual([docA, docB].sort());
    expect((await t.request('GET', `/v1/collections/${cid}/contradictions?documentId=${docA}&severity=medium`)).body.total).toBe(1);
    expect((await t.request('GET', `/v1/collections/${cid}/contradictions?severity=high`)).body.total).toBe(0);
    expectError(await t.request('GET', `/v1/collections/${cid}/contradictions?limit=101`), 400);
    const files = await t.request('GET', `/v1/collections/${cid}/contradictions/files`);
    expect(files.body.files.map((file: { filename: string; contradictionCount: number }) => [file.filename, file.contradictionCount])).toEqual([
      ['policy-2022.md', 1],
      ['policy-2024.md', 1],
    ]);

    expectError(await t.request('PATCH', `/v1/collections/${cid}/contradictions/${item.id}`, { json: { status: 'applied' } }), 400);
    const applied = await t.request('POST', `/v1/collections/${cid}/contradictions/${item.id}/apply-instruction`, { json: {} });
    expect(applied.status).toBe(204);
    expect((await t.request('GET', `/v1/collections/${cid}`)).body.instructions).toBe('Quote the newest expenses policy for meal allowances.');
    const dismissed = await t.request('PATCH', `/v1/collections/${cid}/contradictions/${item.id}`, { json: { status: 'dismissed' } });
    expect(dismissed.status).toBe(200);
    expect(dismissed.body.status).toBe('dismissed');
    expectError(await t.request('PATCH', `/v1/collections/${cid}/contradictions/${crypto.randomUUID()}`, { json: { status: 'dismissed' } }), 404);
  });

  it('recompute/claims answers 204, deletes the claims and extracts them again', async () => {
    const res = await t.request('POST', `/v1/collections/${cid}/recompute/claims`);
    expect(res.status).toBe(204);
    await t.server.dossier.idle();
    expect((await t.request('GET', `/v1/collections/${cid}/stats`)).body.totalClaimsCount).toBe(3);
  });

  it('maps and judges claims of a collection with an embedding model through its embeddings', async () => {
    const hybrid = (await t.createCollection({ name: 'Hybrid policies', embeddingModel: embedder.model })).id;
    await t.request('PATCH', `/v1/collections/${hybrid}`, { json: { enableSummarization: false, enableCaptioning: false } });
    await t.ingest(hybrid, 'policy-2022.md', POLICY_V1);
    await t.ingest(hybrid, 'policy-2024.md', POLICY_V2);
    await t.server.dossier.idle();
    const stream = await openSse(`${t.url}/v1/collections/${hybrid}/claims/map`, { authorization: `Bearer ${t.liveKey}` });
    const done = await stream.next((message) => message.type === 'done');
    stream.close();
    expect(done.total).toBe(3);
    expect(new Set(done.claims.map((item: { x: number; y: number }) => `${item.x},${item.y}`)).size).toBe(3);
    await t.request('POST', `/v1/collections/${hybrid}/contradictions/detect`);
    const run = await waitFor(async () => {
      const latest = await t.request('GET', `/v1/collections/${hybrid}/contradictions/runs/latest`);
      return latest.body.status === 'completed' ? latest.body : null;
    }, 'the contradiction run');
    expect(run.contradictionsFound).toBe(1);
  });

  it("needs this project's API key on every claims and contradictions route", async () => {
    const paths: [string, string][] = [
      ['GET', `/v1/documents/${docA}/claims`],
      ['GET', `/v1/collections/${cid}/contradictions`],
      ['GET', `/v1/collections/${cid}/contradictions/files`],
      ['POST', `/v1/collections/${cid}/contradictions/detect`],
      ['GET', `/v1/collections/${cid}/contradictions/runs/latest`],
      ['POST', `/v1/collections/${cid}/recompute/claims`],
    ];
    for (const [method, path] of paths) {
      expectError(await t.request(method, path, { auth: null }), 401);
      expectError(await t.request(method, path, { auth: otherKey }), 404);
    }
    const anonymousMap = await openSse(`${t.url}/v1/collections/${cid}/claims/map`);
    expect(anonymousMap.status).toBe(401);
  });
});
