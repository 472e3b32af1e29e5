import type { ChatRequest, ModelResolver } from '@dossier/core';
import { isClaimExtraction, ScriptedModel, type ScriptedTurn, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer } from './helpers.ts';

let t: TestServer;
let otherKey: string;
let real: ModelResolver;
let current: ModelResolver;

const LEDGER =
  '# Overview\n\nThe zephyr programme replaced three legacy billing systems with a single general ledger during 2023.\n\n' +
  '## How the quarterly billing reconciliation works\n\nInvoices are matched against bank statements every quarter by the finance team.\n';
const RAINFALL =
  '# Rainfall measurements across the northern stations\n\nMonthly totals in millimetres.\n\n' +
  '| Station | January | February |\n| --- | --- | --- |\n| Alder | 81 | 64 |\n| Birch | 92 | 70 |\n';

beforeAll(async () => {
  t = await startTestServer();
  // The test seam (as in research.test.ts): the server's resolver delegates to the one each test installs.
  const context = dossierContext(t.server.dossier);
  real = context.models;
  current = real;
  context.models = { resolve: (...a) => current.resolve(...a), hasProvider: (a) => current.hasProvider(a) };
  otherKey = (await t.server.dossier.auth.bootstrap('other@example.test', 'another long password'))!.liveKey;
});
afterAll(async () => {
  await t?.close();
});

/** A scripted model answering every summary or table-caption prompt with `text` (after `waitFor`, when given). */
function useModel(text: string, waitFor?: Promise<unknown>): ScriptedModel {
  const model = new ScriptedModel((_req: ChatRequest): ScriptedTurn => ({ text, waitFor }));
  current = scriptedResolver(model);
  return model;
}

/** The project has no model provider (the server's own resolver in this configuration). */
const useNoProvider = () => {
  current = real;
};

const idle = () => t.server.dossier.idle();
/** A new collection with the given settings (the flags are set by update: create does not take them). */
async function collection(settings: Record<string, unknown>): Promise<string> {
  const { id } = await t.createCollection();
  const res = await t.request('PATCH', `/v1/collections/${id}`, { json: settings });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return id;
}
const sections = async (docId: string): Promise<Json[]> => (await t.request('GET', `/v1/documents/${docId}/sections`)).body;
const scanTitles = async (cid: string, query: string): Promise<string[]> =>
  (await t.request('POST', `/v1/collections/${cid}/sections/scan`, { json: { query } })).body.results.map((r: Json) => r.section.title);
const stats = async (cid: string): Promise<Json> => (await t.request('GET', `/v1/collections/${cid}/stats`)).body;
const captions = async (docId: string): Promise<Json[]> => (await t.request('GET', `/v1/documents/${docId}/chunks/captions`)).body;
const captionHits = async (cid: string, q: string): Promise<string[]> =>
  (await t.request('POST', `/v1/collections/${cid}/query`, { json: { q } })).body
    .map((r: Json) => r.chunk.content)
    .filter((c: string) => c.startsWith('Caption: '));

describe('POST|PATCH /v1/collections/:id/recompute/summaries', () => {
  it('resets AI summaries to extractive in the store and the scan index, then re-enqueues every ready document', async () => {
    useModel('An overview of the walrus ledger migration.');
    const cid = await collection({ enableCaptioning: false });
    const doc = await t.ingest(cid, 'ledger.md', LEDGER);
    await idle();
    expect((await sections(doc.id))[0]).toMatchObject({ title: 'Overview', summaryType: 'generated', summary: 'An overview of the walrus ledger migration.' });
    expect(await scanTitles(cid, 'walrus')).toEqual(['Overview']);
    expect((await stats(cid)).summarizedCount).toBe(1);

    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const model = useModel('An overview of the narwhal ledger migration.', gate);
    const res = await t.request('POST', `/v1/collections/${cid}/recompute/summaries`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ enqueued: 1 });
    await model.nextCall(0); // the new job is running, held before its model answer
    expect((await sections(doc.id)).map((s) => s.summaryType)).toEqual(['extractive', 'extractive']);
    expect((await sections(doc.id))[0].summary).toMatch(/^The zephyr programme replaced/);
    expect(await scanTitles(cid, 'walrus')).toEqual([]);
    expect((await stats(cid)).summarizedCount).toBe(0);

    release();
    await idle();
    expect((await sections(doc.id))[0]).toMatchObject({ summaryType: 'generated', summary: 'An overview of the narwhal ledger migration.' });
    expect(await scanTitles(cid, 'narwhal')).toEqual(['Overview']);
  });

  it('answers PATCH like POST', async () => {
    useModel('A first summary.');
    const cid = await collection({ enableCaptioning: false });
    const doc = await t.ingest(cid, 'ledger.md', LEDGER);
    await t.ingest(cid, 'ledger-copy.md', `${LEDGER}\nOne more line.\n`);
    await idle();
    useModel('A second summary.');
    const res = await t.request('PATCH', `/v1/collections/${cid}/recompute/summaries`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ enqueued: 2 });
    await idle();
    expect((await sections(doc.id))[0].summary).toBe('A second summary.');
  });

  it('still resets but enqueues nothing when the project has no model provider', async () => {
    useModel('An AI summary.');
    const cid = await collection({ enableCaptioning: false });
    const doc = await t.ingest(cid, 'ledger.md', LEDGER);
    await idle();
    useNoProvider();
    const res = await t.request('POST', `/v1/collections/${cid}/recompute/summaries`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ enqueued: 0 });
    await idle();
    expect((await sections(doc.id)).map((s) => s.summaryType)).toEqual(['extractive', 'extractive']);
  });
});

describe('POST|PATCH /v1/collections/:id/recompute/captions', () => {
  it('deletes caption chunks and resets table captions, then re-enqueues captioning', async () => {
    useModel('Monthly rainfall at the Alder and Birch stations.');
    const cid = await collection({ enableSummarization: false });
    const doc = await t.ingest(cid, 'rain.md', RAINFALL);
    await idle();
    expect(await captions(doc.id)).toEqual([
      { content: expect.stringContaining('| Alder | 81 | 64 |'), caption: 'Monthly rainfall at the Alder and Birch stations.' },
    ]);
    expect(await captionHits(cid, 'rainfall stations')).toEqual(['Caption: Monthly rainfall at the Alder and Birch stations.']);
    expect((await stats(cid)).captionedCount).toBe(1);

    useNoProvider();
    const reset = await t.request('POST', `/v1/collections/${cid}/recompute/captions`);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ enqueued: 0 });
    expect(await captions(doc.id)).toEqual([]);
    expect(await captionHits(cid, 'rainfall stations')).toEqual([]);
    expect((await stats(cid)).captionedCount).toBe(0);

    useModel('Rainfall totals per station for January and February.');
    const again = await t.request('PATCH', `/v1/collections/${cid}/recompute/captions`);
    expect(again.body).toEqual({ enqueued: 1 });
    await idle();
    expect((await captions(doc.id)).map((c) => c.caption)).toEqual(['Rainfall totals per station for January and February.']);
    expect(await captionHits(cid, 'rainfall station')).toEqual(['Caption: Rainfall totals per station for January and February.']);
    expect((await stats(cid)).captionedCount).toBe(1);
  });

  it('enqueues nothing when captioning is disabled on the collection', async () => {
    const model = useModel('never');
    const cid = await collection({ enableSummarization: false, enableCaptioning: false });
    await t.ingest(cid, 'rain.md', RAINFALL);
    const res = await t.request('POST', `/v1/collections/${cid}/recompute/captions`);
    expect(res.body).toEqual({ enqueued: 0 });
    await idle();
    expect(model.calls.filter((call) => !isClaimExtraction(call.request))).toEqual([]);
  });
});

describe('recompute access', () => {
  it('needs an API key of the owning project', async () => {
    useNoProvider();
    const cid = (await t.createCollection({ visibility: 'public' })).id;
    for (const what of ['summaries', 'captions']) {
      expectError(await t.request('POST', `/v1/collections/${cid}/recompute/${what}`, { auth: null }), 401);
      expectError(await t.request('PATCH', `/v1/collections/${cid}/recompute/${what}`, { auth: otherKey }), 404);
      expectError(await t.request('POST', `/v1/collections/${crypto.randomUUID()}/recompute/${what}`), 404);
    }
  });
});
