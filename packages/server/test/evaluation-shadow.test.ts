import { randomUUID } from 'node:crypto';
import type { ChunkIndex, ChunkRow } from '@dossier/core';
import { dossierContext, FakeEmbedder } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer, waitFor } from './helpers.ts';

/**
 * What-if runs of settings that need re-indexing (issue 38): chunking or the embedding model are tried on a shadow
 * copy of the collection's index, re-chunked from the stored Markdown (and re-embedded), which the run searches and
 * then drops. Such runs are queued: the POST answers 202 with the run `running`, a job does the work, and the run is
 * polled until `completed` or `failed`. The index calls are recorded (on the real LanceDB index) to see the shadow built and dropped, and the
 * original collection and its index are compared before and after.
 */

const embedder = new FakeEmbedder({ dimension: 32, model: 'fake-32' });
let t: TestServer;
let cid: string;
let index: ChunkIndex;
const created: string[] = [];
const dropped: string[] = [];
const upserted = new Map<string, number>();
/** When set, writing to a shadow index fails (a shadow build that breaks half-way). */
let breakShadowWrites = false;

const PARAGRAPH = (topic: string, i: number) =>
  `The ${topic} paragraph ${i} talks about ${topic} and about many other unrelated words such as river, stone, lamp, field and road.`;
const CORPUS: Record<string, string> = {
  'tides.md': `# Tides\n\n${Array.from({ length: 12 }, (_, i) => PARAGRAPH('tide', i)).join('\n\n')}\n\nLarge ships enter the harbour at high water only.\n`,
  'glaciers.md': `# Glaciers\n\n${Array.from({ length: 12 }, (_, i) => PARAGRAPH('glacier', i)).join('\n\n')}\n\nGlaciers carve valleys over thousands of years.\n`,
};

beforeAll(async () => {
  t = await startTestServer({ embedders: [embedder] });
  cid = (await t.createCollection({ name: 'Shadowed', queryExpansion: 'none', embeddingModel: 'none' })).id;
  for (const [name, text] of Object.entries(CORPUS)) await t.ingest(cid, name, text);
  index = dossierContext(t.server.dossier).index;
  const original = { create: index.createCollection.bind(index), drop: index.dropCollection.bind(index), upsert: index.upsertChunks.bind(index) };
  index.createCollection = async (id, dimension) => {
    created.push(id);
    return original.create(id, dimension);
  };
  index.dropCollection = async (id) => {
    dropped.push(id);
    return original.drop(id);
  };
  index.upsertChunks = async (id: string, rows: ChunkRow[], opts) => {
    if (breakShadowWrites && id.startsWith('shadow-')) throw new Error('disk full');
    upserted.set(id, (upserted.get(id) ?? 0) + rows.length);
    return original.upsert(id, rows, opts);
  };
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const json = (method: string, path: string, body?: unknown) => t.request(method, path, { json: body });

/** POST a run that needs a shadow copy: 202 with the run running, then poll it until it ends. */
async function queuedRun(body: unknown) {
  const started = await json('POST', `/v1/collections/${cid}/evaluations`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body).toMatchObject({ status: 'running', metrics: null, perQuery: [] });
  return waitFor(async () => {
    const run = await t.request('GET', `/v1/collections/${cid}/evaluations/${started.body.id}`);
    return run.body.status === 'running' ? null : run.body;
  }, 'the queued run to end');
}

describe('what-if runs on a shadow copy', () => {
  let setId: string;
  let before: { chunks: number; collection: unknown; collections: number };
  beforeAll(async () => {
    const set = await json('POST', `/v1/collections/${cid}/golden-sets`, {
      name: 'shadow',
      matchBy: 'filename',
      queries: [
        { id: 'ships', query: 'ships harbour high water', relevant: [{ target: 'tides' }] },
        { id: 'valleys', query: 'glaciers carve valleys', relevant: [{ target: 'glaciers' }] },
      ],
    });
    setId = set.body.id;
    before = {
      chunks: await index.countChunks(cid),
      collection: (await t.request('GET', `/v1/collections/${cid}`)).body,
      collections: (await t.request('GET', '/v1/collections')).body.length,
    };
  });

  it('re-chunks into a shadow index, runs the set there, records the run, and drops the shadow', async () => {
    const run = { body: await queuedRun({ setId, settings: { chunkSize: 64, chunkOverlap: 0 } }) };
    expect(run.body).toMatchObject({ status: 'completed', error: null, progress: null });
    expect(run.body.settings).toMatchObject({ chunkSize: 64, chunkOverlap: 0, embeddingModel: 'none', shadow: true });
    expect(run.body.metrics).toMatchObject({ queries: 2, ndcg10: 1 });
    expect(run.body.perQuery).toHaveLength(2);
    expect(created).toHaveLength(1);
    const shadow = created[0]!;
    expect(shadow).toMatch(/^shadow-/);
    expect(upserted.get(shadow)).toBeGreaterThan(before.chunks); // smaller chunks: more of them
    expect(dropped).toEqual([shadow]);
    expect(await index.countChunks(shadow).catch(() => 0)).toBe(0);
    expect((await t.request('GET', `/v1/collections/${cid}/evaluations/${run.body.id}`)).body.settings.shadow).toBe(true);
  });

  it('re-embeds with another model in a shadow, and leaves the original collection and its index untouched', async () => {
    const embedded = embedder.calls.length;
    const run = { body: await queuedRun({ setId, settings: { embeddingModel: 'fake-32' } }) };
    expect(run.body.status).toBe('completed');
    expect(run.body.settings).toMatchObject({ embeddingModel: 'fake-32', chunkSize: 512, shadow: true });
    expect(embedder.calls.length).toBeGreaterThan(embedded);
    expect(created).toHaveLength(2);
    expect(dropped).toEqual(created);
    expect(await index.countChunks(cid)).toBe(before.chunks);
    expect(upserted.get(cid) ?? 0).toBe(0); // no write to the original's index since the ingest (recorded from here on)
    expect((await t.request('GET', `/v1/collections/${cid}`)).body).toEqual(before.collection);
    expect((await t.request('GET', '/v1/collections')).body).toHaveLength(before.collections);
    const plain = await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { chunkSize: 512 } });
    expect(plain.status).toBe(201); // nothing to re-index: synchronous
    expect(plain.body.status).toBe('completed');
    expect(plain.body.settings).toMatchObject({ chunkSize: 512, shadow: false });
    expect(created).toHaveLength(2);
  });

  it('refuses an unknown model and an overlap not below the chunk size, leaving no shadow behind', async () => {
    expectError(await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { embeddingModel: 'nope' } }), 400, /'nope' is not available/);
    expectError(
      await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { chunkSize: 64, chunkOverlap: 64 } }),
      400,
      /chunkOverlap must be smaller/,
    );
    expect(dropped).toEqual(created);
  });

  it('ends a run whose shadow build breaks as failed, with the reason, and drops its shadow', async () => {
    breakShadowWrites = true;
    try {
      const run = await queuedRun({ setId, settings: { chunkSize: 128, chunkOverlap: 0 } });
      expect(run).toMatchObject({ status: 'failed', metrics: null, progress: null });
      expect(run.error).toMatch(/Internal error while evaluating on a shadow copy/);
    } finally {
      breakShadowWrites = false;
    }
    expect(created.at(-1)).toMatch(/^shadow-/);
    expect(dropped).toEqual(created);
    expect(await index.countChunks(cid)).toBe(before.chunks);
    const compared = await t.request(
      'GET',
      `/v1/collections/${cid}/evaluations/compare?base=${(await t.request('GET', `/v1/collections/${cid}/evaluations`)).body[0].id}&candidate=${(await t.request('GET', `/v1/collections/${cid}/evaluations`)).body[1].id}`,
    );
    expectError(compared, 409, /Only completed runs/);
  });

  it('drops the shadow table left by an attempt that crashed before building the copy again', async () => {
    const ctx = dossierContext(t.server.dossier);
    const stale = `shadow-${randomUUID()}`;
    await index.createCollection(stale, null);
    const runId = randomUUID();
    await ctx.store.insertEvaluationRun({
      id: runId,
      collectionId: cid,
      setId,
      setVersion: 1,
      trigger: 'manual',
      status: 'running',
      error: null,
      metrics: null,
      perQuery: [],
      progress: null,
      settings: {
        queryExpansion: 'none',
        enableReranking: false,
        limit: 10,
        lexicalWeight: 1,
        vectorWeight: 1,
        rrfK: 60,
        chunkSize: 96,
        chunkOverlap: 0,
        embeddingModel: 'none',
        shadow: true,
      },
      shadowIndex: stale,
      createdAt: new Date().toISOString(),
    });
    await ctx.queue.enqueue({ type: 'evaluation.shadow', payload: { runId } });
    ctx.wakeWorkers();
    const run = await waitFor(async () => {
      const r = await t.request('GET', `/v1/collections/${cid}/evaluations/${runId}`);
      return r.body.status === 'running' ? null : r.body;
    }, 'the retried run to end');
    expect(run).toMatchObject({ status: 'completed', metrics: { queries: 2 } });
    expect(dropped).toContain(stale);
    expect(dropped.filter((id) => id !== stale)).toEqual(created.filter((id) => id !== stale));
    expect(await ctx.store.getEvaluationRun(runId)).toMatchObject({ shadowIndex: null });
  });
});
