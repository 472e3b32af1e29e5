import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DossierError, type ModelResolver } from '@dossier/core';
import { ScriptedModel, type Script, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer, waitFor } from './helpers.ts';

/** Hosted agents (issue 17): invoke as a stream and as a call, preview, runs and steps, and every pre-stream status. */

let t: TestServer;
let token: string;
let base: string;
let reports: string;
let memos: string;
let memoDoc: string;
let real: ModelResolver;
let current: ModelResolver;

beforeAll(async () => {
  t = await startTestServer();
  const context = dossierContext(t.server.dossier);
  real = context.models;
  current = real;
  context.models = { resolve: (...a) => current.resolve(...a), hasProvider: (a) => current.hasProvider(a) };
  token = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  base = `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents`;
  reports = (await t.createCollection({ name: 'Reports' })).id;
  memos = (await t.createCollection({ name: 'Memos' })).id;
  await t.ingest(reports, 'report.md', '# Annual report\n\n## Revenue\n\nRevenue grew 12 percent in 2024.\n');
  memoDoc = (await t.ingest(memos, 'memo.md', '# Memo\n\n## Hiring\n\nWe hired 40 engineers in 2024.\n')).id;
  await t.ingest(memos, 'other.md', '# Other memo\n\n## Hiring plans\n\nNo hiring of engineers is planned for 2025.\n');
  await t.server.dossier.idle();
});
afterAll(async () => {
  await t?.close();
});

const jwt = (method: string, path: string, json?: unknown) => t.request(method, path, { auth: token, ...(json === undefined ? {} : { json }) });

function useScript(script: Script): ScriptedModel {
  const model = new ScriptedModel(script);
  current = scriptedResolver(model);
  return model;
}

async function createAgent(over: Record<string, unknown> = {}): Promise<Json> {
  const res = await jwt('POST', base, {
    slug: `agent-${crypto.randomUUID().slice(0, 8)}`,
    name: 'Analyst',
    systemPrompt: 'You answer from the documents.',
    model: 'scripted',
    allowedCollectionIds: null,
    ...over,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A second account of the org with the member role: its login answer ({token, user}). */
async function memberLogin(): Promise<Json> {
  const credentials = { email: 'member@example.test', password: 'member long password' };
  await t.server.dossier.auth.bootstrap(credentials.email, credentials.password);
  const member = (await t.request('POST', '/auth/login', { auth: null, json: credentials })).body;
  await dossierContext(t.server.dossier).store.setMembership(t.orgId, member.user.id, 'member');
  return member;
}

const newOrgKey = async (): Promise<string> => (await jwt('POST', `/v1/orgs/${t.orgId}/api-keys`, { name: 'agent caller' })).body.key;

/** POST for an SSE stream; returns the `data:` events in order. */
async function streamEvents(path: string, body: unknown, signal?: AbortSignal): Promise<Json[]> {
  const res = await fetch(`${t.url}${path}`, {
    method: 'POST',
    signal,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)));
}

describe('invoking a hosted agent', () => {
  it('streams run_started, tool_call, tool_result, chunk and done, and stores the run with its steps', async () => {
    const agent = await createAgent({ allowedCollectionIds: [reports] });
    const model = useScript([
      { toolCalls: [{ name: 'search_collection', arguments: { collectionId: reports, query: 'revenue' } }] },
      { text: ['Revenue grew ', '12 percent [S1].'] },
    ]);
    const events = await streamEvents(`${base}/${agent.slug}/invoke`, { query: 'How did revenue change?' });
    expect(events.map((e) => e.type)).toEqual(['run_started', 'tool_call', 'tool_result', 'chunk', 'chunk', 'done']);
    const runId = events[0]!.runId;
    expect(events[1]).toEqual({
      type: 'tool_call',
      tool: 'search_collection',
      collectionId: reports,
      args: { collectionId: reports, query: 'revenue' },
      stepIndex: 1,
    });
    expect(events[2]).toEqual({ type: 'tool_result', tool: 'search_collection', summary: '1 passage from report.md', stepIndex: 2 });
    const done = events.at(-1)!;
    expect(done).toMatchObject({ runId, status: 'succeeded', response: 'Revenue grew 12 percent [S1].', iterationsUsed: 2, contradictionFlags: [] });
    expect(done.sources).toEqual([expect.objectContaining({ marker: 'S1', collectionId: reports, filename: 'report.md', sectionTitle: 'Revenue' })]);
    expect(done.structuredOutput).toBeUndefined();
    // The system prompt carries the service footer: the allow-list, the tools and the untrusted-content notice.
    const system = String(model.calls[0]!.request.messages[0]!.content);
    expect(system).toMatch(/^You answer from the documents\.\n\n---\nService notes/);
    expect(system).toContain(`- ${reports} (Reports)`);
    expect(system).toContain('Tools: search_collection, scan_sections, get_section_chunks, list_documents, get_document.');
    expect(system).toMatch(/untrusted data/);
    expect(String(model.calls[1]!.request.messages.at(-1)!.content)).toMatch(/^<untrusted_tool_result tool="search">/);

    const run = await jwt('GET', `${base}/${agent.slug}/runs/${runId}`);
    expect(run.body).toMatchObject({
      id: runId,
      agentId: agent.id,
      status: 'succeeded',
      query: 'How did revenue change?',
      response: done.response,
      iterationsUsed: 2,
    });
    expect(run.body.agentSnapshot).toMatchObject({ id: agent.id, slug: agent.slug, allowedCollectionIds: [reports] });
    const steps = await jwt('GET', `${base}/${agent.slug}/runs/${runId}/steps`);
    expect(steps.body.map((s: Json) => [s.stepIndex, s.kind, s.tool])).toEqual([
      [0, 'message', null],
      [1, 'tool_call', 'search_collection'],
      [2, 'tool_result', 'search_collection'],
      [3, 'message', null],
    ]);
    expect(steps.body[3].content).toEqual({ role: 'assistant', content: done.response });
    const page = await jwt('GET', `${base}/${agent.slug}/runs/${runId}/steps?limit=2&offset=2`);
    expect(page.body.map((s: Json) => s.stepIndex)).toEqual([2, 3]);
    const list = await jwt('GET', `${base}/${agent.slug}/runs?status=succeeded`);
    expect(list.body).toMatchObject({ runs: [{ id: runId, status: 'succeeded' }], hasMore: false });
    expect(list.body.runs[0].agentSnapshot).toBeUndefined();
    expect((await jwt('DELETE', `${base}/${agent.slug}/runs/${runId}`)).status).toBe(204);
    expectError(await jwt('GET', `${base}/${agent.slug}/runs/${runId}`), 404);
    expect(await dossierContext(t.server.dossier).store.listAgentRunSteps(runId, { limit: 10, offset: 0 })).toEqual({ steps: [], hasMore: false });
  });

  it('applies an allow-list change mid-run: the next tool call is refused', async () => {
    const agent = await createAgent({ allowedCollectionIds: [reports, memos] });
    let release!: () => void;
    const patched = new Promise<void>((resolve) => {
      release = resolve;
    });
    useScript([
      { toolCalls: [{ name: 'search_collection', arguments: { collectionId: memos, query: 'hiring' } }] },
      { waitFor: patched, toolCalls: [{ name: 'search_collection', arguments: { collectionId: memos, query: 'engineers' } }] },
      { text: 'Only the reports are open to me now.' },
    ]);
    const running = streamEvents(`${base}/${agent.slug}/invoke`, { query: 'Hiring?' });
    await waitFor(async () => (await jwt('GET', `${base}/${agent.slug}/runs`)).body.runs.length > 0 || null, 'the run to start', 10_000);
    expect((await jwt('PATCH', `${base}/${agent.slug}`, { allowedCollectionIds: [reports] })).status).toBe(200);
    release();
    const results = (await running).filter((e) => e.type === 'tool_result');
    expect(results[0]!.summary).toMatch(/passage/);
    expect(results[1]!.summary).toMatch(/^Error: Collection .* is not one this agent may read/);
  });

  it('scopes every tool call to documentId', async () => {
    const agent = await createAgent({ allowedCollectionIds: [memos] });
    useScript([{ toolCalls: [{ name: 'search_collection', arguments: { collectionId: memos, query: 'hiring engineers' } }] }, { text: 'We hired 40 [S1].' }]);
    const res = await jwt('POST', `${base}/${agent.slug}/invoke/sync`, { query: 'Hiring?', documentId: memoDoc });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sources.map((s: Json) => s.documentId)).toEqual([memoDoc]);
    const steps = await jwt('GET', `${base}/${agent.slug}/runs/${res.body.runId}/steps`);
    expect(steps.body[2].content.summary).toBe('1 passage from memo.md');
    expectError(await jwt('POST', `${base}/${agent.slug}/invoke/sync`, { query: 'x', documentId: crypto.randomUUID() }), 404);
  });

  it('returns structuredOutput when the answer matches the outputSchema, a warning otherwise', async () => {
    const outputSchema = { type: 'object', properties: { growth: { type: 'number' } }, required: ['growth'], additionalProperties: false };
    const agent = await createAgent({ outputSchema });
    useScript([{ text: '```json\n{"growth": 12}\n```' }]);
    const ok = await jwt('POST', `${base}/${agent.slug}/invoke/sync`, { query: 'Growth?' });
    expect(ok.body).toMatchObject({ status: 'succeeded', response: '```json\n{"growth": 12}\n```', structuredOutput: { growth: 12 }, warnings: [] });
    useScript([{ text: '{"growth": "twelve"}' }]);
    const bad = await jwt('POST', `${base}/${agent.slug}/invoke/sync`, { query: 'Growth?' });
    expect(bad.body.structuredOutput).toBeUndefined();
    expect(bad.body).toMatchObject({
      status: 'succeeded',
      response: '{"growth": "twelve"}',
      warnings: [expect.stringMatching(/does not match the outputSchema \(\/growth must be number\)/)],
    });
    useScript([{ text: 'About twelve percent.' }]);
    const stream = await streamEvents(`${base}/${agent.slug}/invoke`, { query: 'Growth?' });
    expect(stream.map((e) => e.type)).toEqual(['run_started', 'chunk', 'done']);
    expectError(
      await jwt('POST', base, {
        slug: 'bad-schema',
        name: 'x',
        systemPrompt: 'x',
        model: 'scripted',
        allowedCollectionIds: null,
        outputSchema: { type: 'nope' },
      }),
      400,
      /outputSchema/,
    );
  });

  it('ends with a warning and status timeout when the time limit fires (408 for sync without answer text)', async () => {
    const agent = await createAgent({ timeoutMs: 1000 });
    useScript([{ text: ['Revenue'], hangAfterDeltas: 1 }]);
    const events = await streamEvents(`${base}/${agent.slug}/invoke`, { query: 'Slow?' });
    expect(events.map((e) => e.type)).toEqual(['run_started', 'chunk', 'warning', 'done']);
    expect(events[2]!.message).toMatch(/time limit of 1 s/);
    expect(events[3]).toMatchObject({ status: 'timeout', response: 'Revenue' });
    useScript([{ hangAfterDeltas: 0 }]);
    expectError(await jwt('POST', `${base}/${agent.slug}/invoke/sync`, { query: 'Slower?' }), 408, /time limit/);
    const runs = (await jwt('GET', `${base}/${agent.slug}/runs?status=timeout`)).body.runs;
    expect(runs).toHaveLength(2);
  });

  it('stores a run cancelled when the client disconnects', async () => {
    const agent = await createAgent();
    const model = useScript([{ text: ['Partial'], hangAfterDeltas: 1 }]);
    const abort = new AbortController();
    const res = await fetch(`${t.url}${base}/${agent.slug}/invoke`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Wait' }),
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('"chunk"')) seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const run = await waitFor(async () => (await jwt('GET', `${base}/${agent.slug}/runs?status=cancelled`)).body.runs[0], 'the cancelled run');
    expect(run).toMatchObject({ status: 'cancelled', response: 'Partial' });
    expect(model.calls[0]!.outcome).toBe('aborted');
  });

  it('ends a failed run with an error event, then done with status failed', async () => {
    const agent = await createAgent();
    useScript([{ error: new DossierError('provider_error', 'The model provider failed: socket hang up') }]);
    const events = await streamEvents(`${base}/${agent.slug}/invoke`, { query: 'Fail?' });
    expect(events.map((e) => e.type)).toEqual(['run_started', 'error', 'done']);
    expect(events[1]).toEqual({ type: 'error', message: 'The model provider failed: socket hang up', code: 'provider_error' });
    expect(events[2]).toMatchObject({ status: 'failed' });
  });

  it('previews a draft: preview- run id, the draft prompt, nothing stored', async () => {
    const agent = await createAgent();
    const model = useScript([{ text: 'Draft answer.' }]);
    const events = await streamEvents(`${base}/${agent.slug}/preview`, { query: 'Try', draft: { systemPrompt: 'You are the draft.' } });
    expect(events[0]!.runId).toMatch(/^preview-/);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'succeeded', response: 'Draft answer.' });
    expect(String(model.calls[0]!.request.messages[0]!.content)).toMatch(/^You are the draft\./);
    expect((await jwt('GET', `${base}/${agent.slug}/runs`)).body.runs).toEqual([]);
    useScript([{ text: 'New.' }]);
    const fresh = await streamEvents(`${base}/not-saved-yet/preview`, { query: 'Try', draft: { systemPrompt: 'New agent.', model: 'scripted' } });
    expect(fresh.at(-1)).toMatchObject({ status: 'succeeded' });
    expectError(await jwt('POST', `${base}/not-saved-yet/preview`, { query: 'Try', draft: {} }), 400, /systemPrompt and model/);
  });

  it('lets only org admins preview (issue 33): a member gets 403 and an org key 401, and neither reaches the model', async () => {
    const agent = await createAgent({ allowedCollectionIds: [reports] });
    const member = await memberLogin();
    const orgKey = await newOrgKey();
    const model = useScript([{ toolCalls: [{ name: 'search_collection', arguments: { collectionId: memos, query: 'hiring' } }] }, { text: 'Memos read.' }]);
    const widened = { query: 'Hiring?', draft: { systemPrompt: 'Read everything.', allowedCollectionIds: null } };
    for (const slug of [agent.slug, 'unsaved-draft']) {
      const draft = slug === agent.slug ? widened : { ...widened, draft: { ...widened.draft, model: 'scripted' } };
      expectError(await t.request('POST', `${base}/${slug}/preview`, { auth: member.token, json: draft }), 403, /admin role/);
      expectError(await t.request('POST', `${base}/${slug}/preview`, { auth: orgKey, json: draft }), 401);
    }
    expect(model.calls).toHaveLength(0);
    // Invoking the saved agent stays open to members, within its allow-list.
    const invoked = await t.request('POST', `${base}/${agent.slug}/invoke/sync`, { auth: member.token, json: { query: 'Hiring?' } });
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    const steps = await jwt('GET', `${base}/${agent.slug}/runs/${invoked.body.runId}/steps`);
    expect(steps.body[2].content.summary).toMatch(/^Error: Collection .* is not one this agent may read/);
  });

  it("enforces an admin's draft allow-list on every tool call, as a saved agent's", async () => {
    const agent = await createAgent({ allowedCollectionIds: null });
    useScript([{ toolCalls: [{ name: 'search_collection', arguments: { collectionId: memos, query: 'hiring' } }] }, { text: 'Only reports.' }]);
    const events = await streamEvents(`${base}/${agent.slug}/preview`, { query: 'Hiring?', draft: { allowedCollectionIds: [reports] } });
    expect(events.find((e) => e.type === 'tool_result')!.summary).toMatch(/^Error: Collection .* is not one this agent may read/);
  });

  it('lets a member delete only the runs they started, an admin any run (issue 33)', async () => {
    const agent = await createAgent();
    const member = await memberLogin();
    const orgKey = await newOrgKey();
    const runAs = async (auth: string) => {
      useScript([{ text: 'Done.' }]);
      const res = await t.request('POST', `${base}/${agent.slug}/invoke/sync`, { auth, json: { query: 'Go' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.runId as string;
    };
    const [admins, members, keys] = [await runAs(token), await runAs(member.token), await runAs(orgKey)];
    const asMember = (method: string, runId: string) => t.request(method, `${base}/${agent.slug}/runs/${runId}`, { auth: member.token });
    expectError(await asMember('DELETE', admins), 403, /someone else started needs the admin role/);
    expectError(await asMember('DELETE', keys), 403, /admin role/);
    expect((await asMember('GET', admins)).status).toBe(200);
    expect((await jwt('GET', `${base}/${agent.slug}/runs/${admins}/steps`)).body.length).toBeGreaterThan(0);
    expect((await asMember('DELETE', members)).status).toBe(204);
    expect((await jwt('DELETE', `${base}/${agent.slug}/runs/${keys}`)).status).toBe(204);
    expect((await jwt('DELETE', `${base}/${agent.slug}/runs/${admins}`)).status).toBe(204);
    expect((await jwt('GET', `${base}/${agent.slug}/runs`)).body.runs).toEqual([]);
  });

  it('answers the pre-stream statuses as HTTP errors: 401, 404, 400 and 402 without a project provider key', async () => {
    const agent = await createAgent();
    useScript([]);
    expectError(await t.request('POST', `${base}/${agent.slug}/invoke`, { auth: null, json: { query: 'x' } }), 401);
    expectError(await jwt('POST', `${base}/no-such-agent/invoke`, { query: 'x' }), 404);
    expectError(await jwt('POST', `${base}/${agent.slug}/invoke`, { query: '' }), 400);
    expectError(await jwt('POST', `${base}/${agent.slug}/invoke`, { query: 'x', extra: true }), 400, /extra/);
    current = real;
    const paid = await createAgent({ model: 'gpt-4o-mini' });
    expectError(await jwt('POST', `${base}/${paid.slug}/invoke`, { query: 'x' }), 402, /provider key/);
    expectError(await jwt('POST', `${base}/${paid.slug}/invoke/sync`, { query: 'x' }), 402, /provider key/);
  });
});

describe('limits of agent runs', () => {
  let planned: TestServer;
  let plannedToken: string;
  let plannedBase: string;

  beforeAll(async () => {
    const planFile = join(tmpdir(), `plans-${crypto.randomUUID()}.json`);
    writeFileSync(planFile, JSON.stringify({ plans: { team: { credits: 100, concurrentRuns: 5 } }, default: 'team' }));
    planned = await startTestServer({ config: { plansFile: planFile } });
    plannedToken = (await planned.request('POST', '/auth/login', { auth: null, json: { email: planned.email, password: planned.password } })).body.token;
    plannedBase = `/v1/orgs/${planned.orgId}/projects/${planned.projectId}/agents`;
  });
  afterAll(async () => {
    await planned?.close();
  });

  it('runs 5 of 20 concurrent invocations against a cap of 5 (the rest 429, their credits given back), counting each run once', async () => {
    const created = await planned.request('POST', plannedBase, {
      auth: plannedToken,
      json: { slug: 'busy', name: 'Busy', systemPrompt: 'x', model: 'scripted', allowedCollectionIds: null },
    });
    expect(created.status).toBe(201);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = new ScriptedModel(() => ({ waitFor: gate, text: 'Done.' }));
    dossierContext(planned.server.dossier).models = scriptedResolver(model);
    let answered = 0;
    const calls = Array.from({ length: 20 }, () =>
      planned.request('POST', `${plannedBase}/busy/invoke/sync`, { auth: plannedToken, json: { query: 'Go' } }).finally(() => answered++),
    );
    // Five runs hold the org's slots at the model while the other fifteen are refused; then the five finish.
    await waitFor(async () => (model.calls.length >= 5 && answered >= 15 ? true : null), 'five runs at the model and fifteen refusals', 20_000);
    release();
    const answers = await Promise.all(calls);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    for (const refused of answers.filter((a) => a.status === 429)) expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(model.calls).toHaveLength(5);
    const runs = (await planned.request('GET', `${plannedBase}/busy/runs?limit=100`, { auth: plannedToken })).body.runs;
    expect(runs).toHaveLength(5);
    expect(runs.every((run: Json) => run.status === 'succeeded')).toBe(true);
    const usage = await planned.request('GET', '/v1/usage');
    expect(usage.body.meters.credits).toEqual({ used: 5, limit: 100 });
  });
});

describe('credits of agent runs under concurrency', () => {
  let server: TestServer;
  let token: string;
  let agentsBase: string;

  beforeAll(async () => {
    const planFile = join(tmpdir(), `plans-${crypto.randomUUID()}.json`);
    writeFileSync(planFile, JSON.stringify({ plans: { small: { credits: 3, concurrentRuns: 20 } }, default: 'small' }));
    server = await startTestServer({ config: { plansFile: planFile } });
    token = (await server.request('POST', '/auth/login', { auth: null, json: { email: server.email, password: server.password } })).body.token;
    agentsBase = `/v1/orgs/${server.orgId}/projects/${server.projectId}/agents`;
    await server.request('POST', agentsBase, {
      auth: token,
      json: { slug: 'thrifty', name: 'T', systemPrompt: 'x', model: 'scripted', allowedCollectionIds: null },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lets exactly as many simultaneous runs start as credits remain (none overspent), and gives a failed run its credit back', async () => {
    let calls = 0;
    dossierContext(server.server.dossier).models = scriptedResolver(
      new ScriptedModel(() => {
        calls++;
        return calls === 1 ? { error: new DossierError('provider_error', 'The model provider failed') } : { text: 'Done.' };
      }),
    );
    const failed = await server.request('POST', `${agentsBase}/thrifty/invoke/sync`, { auth: token, json: { query: 'First' } });
    expect(failed.body.status).toBe('failed');
    expect((await server.request('GET', '/v1/usage')).body.meters.credits).toEqual({ used: 0, limit: 3 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => server.request('POST', `${agentsBase}/thrifty/invoke/sync`, { auth: token, json: { query: 'Go' } })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(7);
    expect((await server.request('GET', '/v1/usage')).body.meters.credits).toEqual({ used: 3, limit: 3 });
  });
});
