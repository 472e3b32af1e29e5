import { dossierContext, isClaimExtraction, recordClaimsTurn, ScriptedModel, type ScriptedTurn, scriptedResolver } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from './helpers.ts';

/**
 * Model-proposed golden questions (issue 38): the fast model (a scripted double) drafts one question per sampled
 * section, each stored unconfirmed with its source section; a person accepts (into a set, edited or not) or rejects
 * each, and only accepted questions are scored.
 */

let t: TestServer;
let cid: string;
let resolver: ReturnType<typeof scriptedResolver>;

/** Answers record_questions with one question per section of the prompt, plus an out-of-range and a repeated one. */
const model = new ScriptedModel((request): ScriptedTurn => {
  if (isClaimExtraction(request)) return recordClaimsTurn([]);
  const prompt = String(request.messages.at(-1)?.content ?? '');
  const titles = [...prompt.matchAll(/^## Section (\d+): \S+ › (.+)$/gm)].map((m) => ({
    section: Number(m[1]),
    question: `What does the text say about ${m[2]!.toLowerCase()}?`,
  }));
  return {
    toolCalls: [
      { name: 'record_questions', arguments: { questions: [...titles, { section: 99, question: 'Out of range?' }, { section: 1, question: 'Repeated?' }] } },
    ],
  };
});

const LONG = 'It is described here in enough words to make a question worth asking about it, with details.';
const CORPUS: Record<string, string> = {
  'tides.md': `# Tides\n\nTides decide when large ships may enter the harbour. ${LONG}\n`,
  'glaciers.md': `# Glaciers\n\nGlaciers carve valleys slowly over thousands of years. ${LONG}\n`,
  'lamps.md': `# Lamps\n\nThe keeper tends the lamp at night so that boats find the coast. ${LONG}\n`,
};

beforeAll(async () => {
  t = await startTestServer();
  resolver = scriptedResolver(model);
  dossierContext(t.server.dossier).models = resolver;
  cid = (await t.createCollection({ name: 'Proposed', queryExpansion: 'none' })).id;
  await t.request('PATCH', `/v1/collections/${cid}`, { json: { enableSummarization: false, enableCaptioning: false } });
  for (const [name, text] of Object.entries(CORPUS)) await t.ingest(cid, name, text);
  await t.server.dossier.idle();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const json = (method: string, path: string, body?: unknown, auth?: string) => t.request(method, path, { json: body, auth });
const PROPOSALS = () => `/v1/collections/${cid}/golden-proposals`;

describe('proposed golden questions', () => {
  let proposals: { id: string; question: string; sectionId: string; documentId: string; sectionTitle: string; excerpt: string; status: string }[];

  it('drafts one question per sampled section with the fast model, each with its source section, unconfirmed', async () => {
    const before = model.calls.length;
    const res = await json('POST', PROPOSALS(), { count: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    proposals = res.body;
    expect(proposals).toHaveLength(3);
    const call = model.calls.slice(before).find((c) => !isClaimExtraction(c.request))!;
    expect(call.request.toolChoice).toEqual({ tool: 'record_questions' });
    expect(resolver.requests.at(-1)!.tier).toBe('fast');
    for (const p of proposals) {
      expect(p).toMatchObject({ status: 'proposed', setId: null, setVersion: null, decidedAt: null });
      expect(p.question).toBe(`What does the text say about ${p.sectionTitle.toLowerCase()}?`);
      const sections = (await t.request('GET', `/v1/documents/${p.documentId}/sections`)).body as { id: string; title: string }[];
      expect(sections.find((s) => s.id === p.sectionId)?.title).toBe(p.sectionTitle);
      expect(p.excerpt).toContain('enough words');
    }
    expect((await t.request('GET', `/v1/collections/${cid}/golden-sets`)).body).toEqual([]);
    expect((await t.request('GET', `${PROPOSALS()}?status=proposed`)).body).toHaveLength(3);
  });

  it('accepts into a new set and into the next version of it (edited), rejects, and scores only the accepted', async () => {
    const [first, second, third] = proposals as [(typeof proposals)[0], (typeof proposals)[0], (typeof proposals)[0]];
    const created = await json('POST', `${PROPOSALS()}/${first.id}/accept`, { name: 'drafted' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.set).toMatchObject({
      name: 'drafted',
      version: 1,
      matchBy: 'section',
      queries: [{ id: first.id, query: first.question, relevant: [{ target: first.sectionId, grade: 1 }] }],
    });
    expect(created.body.proposal).toMatchObject({ status: 'accepted', setId: created.body.set.id, setVersion: 1 });
    const setId = created.body.set.id as string;
    const edited = await json('POST', `${PROPOSALS()}/${second.id}/accept`, { setId, question: '  Which text covers this?  ' });
    expect(edited.body.set).toMatchObject({ id: setId, version: 2, queryCount: 2 });
    expect(edited.body.set.queries[1]).toEqual({ id: second.id, query: 'Which text covers this?', relevant: [{ target: second.sectionId, grade: 1 }] });
    expect(edited.body.proposal).toMatchObject({ question: 'Which text covers this?', setVersion: 2 });
    const rejected = await json('POST', `${PROPOSALS()}/${third.id}/reject`);
    expect(rejected.body).toMatchObject({ id: third.id, status: 'rejected', setId: null });
    expect(rejected.body.decidedAt).toBeTruthy();
    expect((await t.request('GET', `${PROPOSALS()}?status=proposed`)).body).toEqual([]);
    expect((await t.request('GET', `${PROPOSALS()}?status=accepted`)).body.map((p: { id: string }) => p.id).sort()).toEqual([first.id, second.id].sort());

    const run = await json('POST', `/v1/collections/${cid}/evaluations`, { setId });
    expect(run.status).toBe(201);
    expect(run.body.perQuery.map((q: { id: string }) => q.id)).toEqual([first.id, second.id]);
    expect(run.body.metrics.queries).toBe(2);
    expect(run.body.perQuery[0].expected[0]).toMatchObject({ target: first.sectionId, rank: 1 });
  });

  it('refuses a second decision (409), bad bodies (400), unknown proposals and strangers (404)', async () => {
    const [first, , third] = proposals as [(typeof proposals)[0], (typeof proposals)[0], (typeof proposals)[0]];
    expectError(await json('POST', `${PROPOSALS()}/${third.id}/accept`, { name: 'late' }), 409, /rejected already/);
    expectError(await json('POST', `${PROPOSALS()}/${first.id}/reject`), 409, /accepted already/);
    const fresh = (await json('POST', PROPOSALS(), { count: 1 })).body[0];
    expectError(await json('POST', `${PROPOSALS()}/${fresh.id}/accept`, { name: 'a', setId: 'b' }), 400, /exactly one of setId or name/);
    expectError(await json('POST', `${PROPOSALS()}/${fresh.id}/accept`, {}), 400, /exactly one of setId or name/);
    expectError(await json('POST', `${PROPOSALS()}/${fresh.id}/accept`, { setId: 'missing' }), 404);
    expectError(await json('POST', PROPOSALS(), { count: 0 }), 400);
    expectError(await json('POST', PROPOSALS(), { count: 21 }), 400);
    expectError(await t.request('GET', `${PROPOSALS()}?status=maybe`), 400);
    expectError(await json('POST', `${PROPOSALS()}/nope/reject`), 404);
    expectError(await json('POST', `${PROPOSALS()}/${fresh.id}/reject`, undefined, t.testKey), 404);
    expectError(await json('POST', PROPOSALS(), { count: 1 }, t.testKey), 404);
    const empty = (await t.createCollection({ name: 'Empty' })).id;
    expectError(await json('POST', `/v1/collections/${empty}/golden-proposals`, {}), 409, /no ready section/);
  });
});
