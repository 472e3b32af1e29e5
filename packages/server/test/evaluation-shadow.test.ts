import type { ChunkIndex, ChunkRow } from '@dossier/core';
import { dossierContext, FakeEmbedder } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from './helpers.ts';

/**
 * What-if runs of settings that need re-indexing (issue 38): chunking or the embedding model are tried on a shadow
 * copy of the collection's index, re-chunked from the stored Markdown (and re-embedded), which the run searches and
 * then drops. The index calls are recorded (on the real LanceDB index) to see the shadow built and dropped, and the
 * original collection and its index are compared before and after.
 */

const embedder = new FakeEmbedder({ dimension: 32, model: 'fake-32' });
let t: TestServer;
let cid: string;
let index: ChunkIndex;
const created: string[] = [];
const dropped: string[] = [];
const upserted = new Map<string, number>();

const PARAGRAPH = (topic: string, i: number) => `The ${topic} paragraph ${i} talks about ${topic} and about many other unrelated words such as river, stone, lamp, field and road.`;
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
    upserted.set(id, (upserted.get(id) ?? 0) + rows.length);
    return original.upsert(id, rows, opts);
  };
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const json = (method: string, path: string, body?: unknown) => t.request(method, path, { json: body });

describe('what-if runs on a shadow copy', () => {
  let setId: string;
  let before: { chunks: number; collection: unknown; collections: number };
  beforeAll(async () => {
    const set = await json('POST', `/v1/collections/${cid}/golden-sets`, {
      name: 'shadow', matchBy: 'filename',
      queries: [{ id: 'ships', query: 'ships harbour high water', relevant: [{ target: 'tides' }] }, { id: 'valleys', query: 'glaciers carve valleys', relevant: [{ target: 'glaciers' }] }],
    });
    setId = set.body.id;
    before = {
      chunks: await index.countChunks(cid),
      collection: (await t.request('GET', `/v1/collections/${cid}`)).body,
      collections: (await t.request('GET', '/v1/collections')).body.length,
    };
  });

  it('re-chunks into a shadow index, runs the set there, records the run, and drops the shadow', async () => {
    const run = await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { chunkSize: 64, chunkOverlap: 0 } });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body.settings).toMatchObject({ chunkSize: 64, chunkOverlap: 0, embeddingModel: 'none', shadow: true });
    expect(run.body.metrics).toMatchObject({ queries: 2, ndcg10: 1 });
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
    const run = await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { embeddingModel: 'fake-32' } });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body.settings).toMatchObject({ embeddingModel: 'fake-32', chunkSize: 512, shadow: true });
    expect(embedder.calls.length).toBeGreaterThan(embedded);
    expect(created).toHaveLength(2);
    expect(dropped).toEqual(created);
    expect(await index.countChunks(cid)).toBe(before.chunks);
    expect(upserted.get(cid) ?? 0).toBe(0); // no write to the original's index since the ingest (recorded from here on)
    expect((await t.request('GET', `/v1/collections/${cid}`)).body).toEqual(before.collection);
    expect((await t.request('GET', '/v1/collections')).body).toHaveLength(before.collections);
    const plain = await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { chunkSize: 512 } });
    expect(plain.body.settings).toMatchObject({ chunkSize: 512, shadow: false });
    expect(created).toHaveLength(2);
  });

  it('refuses an unknown model and an overlap not below the chunk size, leaving no shadow behind', async () => {
    expectError(await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { embeddingModel: 'nope' } }), 400, /'nope' is not available/);
    expectError(await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { chunkSize: 64, chunkOverlap: 64 } }), 400, /chunkOverlap must be smaller/);
    expect(dropped).toEqual(created);
  });
});
