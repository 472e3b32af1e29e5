import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Doc, expectError, startTestServer, type TestServer } from './helpers.ts';

/**
 * Evaluation built in (issue 38), through the HTTP API on real SQLite and LanceDB (BM25 only): golden sets from a
 * JSON list and from BEIR files, versions, runs with per-query results, what-if settings, comparisons and the guard.
 */

let t: TestServer;
let cid: string;
const docs: Record<string, Doc> = {};

/** A short document that answers "keeper", and crowd documents that share the word among many "zebra" terms. */
const CORPUS: Record<string, string> = {
  'keeper.md': '# Lamp\n\nThe keeper tends the lamp at night.\n',
  'glaciers.md': '# Glaciers\n\nGlaciers carve valleys slowly over thousands of years in high mountains.\n',
  ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`crowd-${i}.md`, `# Herd ${i}\n\nA keeper of zebra zebra zebra zebra zebra herds ${i}.\n`])),
  // Documents with neither word, so that "zebra" is rare enough to weigh in the expanded query.
  ...Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`filler-${i}.md`, `# Filler ${i}\n\nRivers flow to the sea past towns and fields ${i}.\n`])),
};

beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Evaluated', queryExpansion: 'none' })).id;
  for (const [name, text] of Object.entries(CORPUS)) docs[name] = await t.ingest(cid, name, text);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const json = (method: string, path: string, body?: unknown, auth?: string) => t.request(method, path, { json: body, auth });

describe('golden sets', () => {
  it('creates a set from a JSON list, versions it on edit, and reads either version', async () => {
    const created = await json('POST', `/v1/collections/${cid}/golden-sets`, {
      name: 'hand made',
      queries: [{ query: 'glaciers valleys', relevant: [{ target: docs['glaciers.md']!.id }] }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ version: 1, matchBy: 'document', queryCount: 1, queries: [{ id: '1', relevant: [{ grade: 1 }] }] });
    const edited = await json('PATCH', `/v1/collections/${cid}/golden-sets/${created.body.id}`, { name: 'hand made v2' });
    expect(edited.body).toMatchObject({ id: created.body.id, version: 2, name: 'hand made v2', queryCount: 1 });
    expect((await t.request('GET', `/v1/collections/${cid}/golden-sets/${created.body.id}?version=1`)).body.name).toBe('hand made');
    const list = await t.request('GET', `/v1/collections/${cid}/golden-sets`);
    expect(list.body.map((s: { version: number }) => s.version)).toEqual([2]);
  });

  it('imports BEIR files, keeping judged queries only, matched by file name stem', async () => {
    const queries = ['{"_id": "q1", "text": "keeper"}', '{"_id": "q2", "text": "glaciers"}', '{"_id": "q3", "text": "unjudged"}'].join('\n');
    const qrels = 'query-id\tcorpus-id\tscore\nq1\tkeeper\t1\nq2\tglaciers\t2\n';
    const res = await json('POST', `/v1/collections/${cid}/golden-sets`, { name: 'beir', beir: { queries, qrels } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ matchBy: 'filename', queryCount: 2, queries: [{ id: 'q1', relevant: [{ target: 'keeper', grade: 1 }] }, { id: 'q2' }] });
  });

  it('refuses malformed input with 400 and foreign keys with 404', async () => {
    expectError(
      await json('POST', `/v1/collections/${cid}/golden-sets`, { name: 'x', beir: { queries: 'not json', qrels: 'q\td\t1' } }),
      400,
      /queries line 1/,
    );
    expectError(await json('POST', `/v1/collections/${cid}/golden-sets`, { name: 'x' }), 400, /exactly one of queries or beir/);
    expectError(await json('POST', `/v1/collections/${cid}/golden-sets`, { name: 'x', queries: [{ query: 'a', relevant: [] }] }), 400);
    expectError(await json('GET', `/v1/collections/${cid}/golden-sets/nope`), 404);
    const other = await json('GET', `/v1/collections/${cid}/golden-sets`, undefined, t.testKey);
    expect(other.status).toBe(404);
  });
});

describe('golden sets from uploaded BEIR files (multipart)', () => {
  const QUERIES = '\uFEFF{"_id": "q1", "text": "keeper"}\n{"_id": "q2", "text": "glaciers"}\n{"_id": "q3", "text": "unjudged"}\n';
  const QRELS = 'query-id\tcorpus-id\tscore\nq1\tkeeper\t1\nq2\tglaciers\t2\n';
  /** A form with the given files (field → [file name, content]) and text fields. */
  const form = (files: Record<string, [string, string | Uint8Array]>, fields: Record<string, string> = { name: 'uploaded' }) => {
    const body = new FormData();
    for (const [field, value] of Object.entries(fields)) body.append(field, value);
    for (const [field, [filename, content]] of Object.entries(files)) body.append(field, new Blob([content]), filename);
    return body;
  };
  const upload = (body: FormData, auth?: string) => t.request('POST', `/v1/collections/${cid}/golden-sets/upload`, { body, auth });

  it('creates a set from queries.jsonl and qrels.tsv, as the JSON body does, and runs it', async () => {
    const res = await upload(form({ queries: ['queries.jsonl', QUERIES], qrels: ['test.tsv', QRELS] }, { name: 'scifact-like', matchBy: 'filename' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      name: 'scifact-like',
      version: 1,
      matchBy: 'filename',
      queryCount: 2,
      queries: [{ id: 'q1', query: 'keeper', relevant: [{ target: 'keeper', grade: 1 }] }, { id: 'q2' }],
    });
    const run = await json('POST', `/v1/collections/${cid}/evaluations`, { setId: res.body.id });
    expect(run.body.metrics).toMatchObject({ queries: 2, ndcg10: 1 });
  });

  it('refuses bad files with a 400 naming the problem, a file over 8 MB with 413, and a stranger with 404', async () => {
    expectError(await upload(form({ queries: ['queries.jsonl', QUERIES] })), 400, /Missing file field 'qrels'/);
    expectError(await upload(form({ queries: ['q.jsonl', QUERIES], qrels: ['t.tsv', QRELS] }, {})), 400, /Missing form field 'name'/);
    expectError(await upload(form({ queries: ['q.jsonl', 'not json\n'], qrels: ['t.tsv', QRELS] })), 400, /queries line 1: not JSON/);
    expectError(await upload(form({ queries: ['q.jsonl', QUERIES], qrels: ['t.tsv', 'q1\tkeeper\t1\nq2\tglaciers\tmany\n'] })), 400, /qrels line 2/);
    expectError(
      await upload(form({ queries: ['q.jsonl', new Uint8Array([0xff, 0xfe, 0x00, 0x41])], qrels: ['t.tsv', QRELS] })),
      400,
      /queries.jsonl \('q.jsonl'\) is not UTF-8/,
    );
    expectError(await upload(form({ queries: ['q.jsonl', '  \n'], qrels: ['t.tsv', QRELS] })), 400, /is empty/);
    expectError(await upload(form({ file: ['a.md', '# a'], qrels: ['t.tsv', QRELS] })), 400, /Unknown file field 'file'/);
    expectError(await upload(form({ queries: ['q.jsonl', QUERIES], qrels: ['t.tsv', QRELS] }, { name: 'x', tags: '[]' })), 400, /Unknown form field 'tags'/);
    const extra = form({ queries: ['q.jsonl', QUERIES], qrels: ['t.tsv', QRELS] });
    extra.append('qrels', new Blob([QRELS]), 'again.tsv');
    expectError(await upload(extra), 400, /At most 2 files/);
    expectError(await upload(form({ queries: ['q.jsonl', 'x'.repeat(8_000_001)], qrels: ['t.tsv', QRELS] })), 413, /exceeds 8000000 bytes/);
    expectError(await upload(form({ queries: ['q.jsonl', QUERIES], qrels: ['t.tsv', QRELS] }), t.testKey), 404);
    expectError(await t.request('POST', `/v1/collections/${cid}/golden-sets/upload`, { json: { name: 'x' } }), 400, /multipart/);
  });
});

describe('evaluation runs', () => {
  let setId: string;
  beforeAll(async () => {
    const body = {
      name: 'keeper',
      queries: [
        { id: 'k', query: 'keeper', relevant: [{ target: 'keeper.md' }] },
        { id: 'g', query: 'glaciers valleys', relevant: [{ target: 'glaciers.md', grade: 2 }] },
      ],
    };
    setId = (await json('POST', `/v1/collections/${cid}/golden-sets`, { ...body, matchBy: 'filename' })).body.id;
  });

  it('runs a set through the query path with metrics and per-query ranks', async () => {
    const run = await json('POST', `/v1/collections/${cid}/evaluations`, { setId });
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({ setVersion: 1, trigger: 'manual', status: 'completed', settings: { queryExpansion: 'none', limit: 10 } });
    expect(run.body.metrics).toMatchObject({ ndcg10: 1, mrr: 1, recall: 1, k: 10, queries: 2 });
    expect(run.body.metrics.latencyP95Ms).toBeGreaterThanOrEqual(run.body.metrics.latencyP50Ms);
    expect(run.body.perQuery[0]).toMatchObject({ id: 'k', expected: [{ target: 'keeper.md', rank: 1 }], ndcg10: 1 });
    expect(run.body.perQuery[0].returned[0]).toBe('keeper.md');
    const got = await t.request('GET', `/v1/collections/${cid}/evaluations/${run.body.id}`);
    expect(got.body.perQuery).toHaveLength(2);
  });

  it('tries a settings patch without changing the collection, and compares two runs', async () => {
    const base = (await json('POST', `/v1/collections/${cid}/evaluations`, { setId })).body;
    const whatIf = (await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { queryExpansion: 'rm3', limit: 3 } })).body;
    expect(whatIf.settings).toMatchObject({ queryExpansion: 'rm3', limit: 3 });
    expect(whatIf.metrics.ndcg10).toBeLessThan(base.metrics.ndcg10);
    expect((await t.request('GET', `/v1/collections/${cid}`)).body.queryExpansion).toBe('none');
    const cmp = await t.request('GET', `/v1/collections/${cid}/evaluations/compare?base=${base.id}&candidate=${whatIf.id}`);
    expect(cmp.status).toBe(200);
    expect(cmp.body.delta.ndcg10).toBeCloseTo(whatIf.metrics.ndcg10 - base.metrics.ndcg10, 12);
    expect(cmp.body.queries[0]).toMatchObject({ id: 'k', baseNdcg10: 1 });
    const list = await t.request('GET', `/v1/collections/${cid}/evaluations?limit=2`);
    expect(list.body.map((r: { id: string }) => r.id)).toEqual([whatIf.id, base.id]);
    expect(list.body[0].perQuery).toBeUndefined();
  });

  it('refuses unknown sets and bad settings, and meters the queries it ran', async () => {
    const used = async () => (await t.request('GET', '/v1/usage')).body.meters.queries.used as number;
    const before = await used();
    expect((await json('POST', `/v1/collections/${cid}/evaluations`, { setId })).status).toBe(201);
    expect(await used()).toBe(before + 2);
    expectError(await json('POST', `/v1/collections/${cid}/evaluations`, { setId: 'missing' }), 404);
    expectError(await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { limit: 0 } }), 400);
    expectError(await json('POST', `/v1/collections/${cid}/evaluations`, { setId, settings: { enableSummarization: true } }), 400, /unknown field/);
    expectError(await t.request('GET', `/v1/collections/${cid}/evaluations/compare?base=x`), 400);
  });

  it('guards a query-time change: 409 with both figures, applied with force, both runs recorded', async () => {
    expect((await json('PUT', `/v1/collections/${cid}/evaluation-guard`, { setId, maxNdcgDrop: 0.01 })).status).toBe(200);
    expect((await t.request('GET', `/v1/collections/${cid}/evaluation-guard`)).body.guard).toMatchObject({ setId, maxNdcgDrop: 0.01 });
    const refused = await json('PATCH', `/v1/collections/${cid}`, { queryExpansion: 'rm3' });
    expect(refused.status).toBe(409);
    expect(refused.body.guard).toMatchObject({ setId, maxNdcgDrop: 0.01, beforeNdcg10: 1 });
    expect(refused.body.guard.afterNdcg10).toBeLessThan(0.99);
    expect((await t.request('GET', `/v1/collections/${cid}`)).body.queryExpansion).toBe('none');
    const triggers = (await t.request('GET', `/v1/collections/${cid}/evaluations?limit=2`)).body.map((r: { trigger: string }) => r.trigger);
    expect(triggers.sort()).toEqual(['guard-after', 'guard-before']);
    expect((await json('PATCH', `/v1/collections/${cid}`, { name: 'renamed' })).status).toBe(200);
    const forced = await json('PATCH', `/v1/collections/${cid}`, { queryExpansion: 'rm3', force: true });
    expect(forced.status).toBe(200);
    expect(forced.body.queryExpansion).toBe('rm3');
    const after = (await json('POST', `/v1/collections/${cid}/evaluations`, { setId })).body;
    expect(after.metrics.ndcg10).toBeCloseTo(refused.body.guard.afterNdcg10, 12);
    expect((await json('DELETE', `/v1/collections/${cid}/evaluation-guard`)).status).toBe(204);
    expect((await t.request('GET', `/v1/collections/${cid}/evaluation-guard`)).body).toEqual({ guard: null });
  });
});
