import { DEFAULT_TIME_LIMITS_MS, DossierError, type ModelResolver } from '@dossier/core';
import { ScriptedModel, type ScriptedTurn, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer, waitFor } from './helpers.ts';

let t: TestServer;
let cid: string;
let otherKey: string;
let real: ModelResolver;
let current: ModelResolver;

const REPORT = '# Annual report\n\n## Revenue\n\nRevenue grew 12 percent in 2024.\n\n## Costs\n\nCosts fell by 3 percent.\n';

beforeAll(async () => {
  // No retries: a scripted provider failure ends the run at once (retries are tested at the wire, in adapters).
  t = await startTestServer({ config: { providerRetries: 0, researchTimeLimitsMs: { ...DEFAULT_TIME_LIMITS_MS, quick: 1000 } } });
  // The test seam: the running server's model resolver delegates to the one each test installs. The server's
  // own resolver (no provider configured in the test config) stays available as `real`.
  const context = dossierContext(t.server.dossier);
  real = context.models;
  current = real;
  context.models = { resolve: (...a) => current.resolve(...a), hasProvider: (a) => current.hasProvider(a) };
  cid = (await t.createCollection({ name: 'Research' })).id;
  await t.ingest(cid, 'report.md', REPORT);
  await t.server.dossier.idle(); // post-ready jobs finish (without a provider) before tests install scripted models
  const other = await t.server.dossier.auth.bootstrap('other@example.test', 'another long password');
  otherKey = other!.liveKey;
});
afterAll(async () => {
  await t?.close();
});

function useScript(turns: ScriptedTurn[]): ScriptedModel {
  const model = new ScriptedModel(turns);
  current = scriptedResolver(model);
  return model;
}

const SEARCH_THEN_ANSWER: ScriptedTurn[] = [
  { toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] },
  { text: ['Revenue grew ', '12 percent [S1].'] },
];

/** POST a research request for an SSE stream. */
const postResearch = (body: unknown, opts: { key?: string; signal?: AbortSignal; collection?: string } = {}) =>
  fetch(`${t.url}/v1/collections/${opts.collection ?? cid}/research`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opts.key ?? t.liveKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal: opts.signal,
  });

/** The `data:` payloads of a complete SSE body, after checking that every non-comment block is exactly `data: <json>`. */
function dataEvents(body: string): unknown[] {
  expect(body.endsWith('\n\n')).toBe(true);
  const blocks = body
    .slice(0, -2)
    .split('\n\n')
    .filter((b) => !b.startsWith(':'));
  for (const b of blocks) expect(b).toMatch(/^data: \{.*\}$/);
  return blocks.map((b) => JSON.parse(b.slice('data: '.length)));
}

describe('POST /v1/collections/:id/research (SSE)', () => {
  it('streams tool_call, chunk and done events, each `data: <json>` and a blank line, then closes', async () => {
    useScript(SEARCH_THEN_ANSWER);
    const res = await postResearch({ q: 'How did revenue change?' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = await res.text();
    const events = dataEvents(body) as Record<string, unknown>[];
    for (const e of events) expect(body).toContain(`data: ${JSON.stringify(e)}\n\n`);
    expect(events.map((e) => e.type)).toEqual(['tool_call', 'chunk', 'chunk', 'done']);
    expect(events[0]).toEqual({ type: 'tool_call', query: 'revenue' });
    expect(events[1]).toEqual({ type: 'chunk', content: 'Revenue grew ' });
    const done = events[3]!;
    expect(Object.keys(done)).toEqual(['type', 'sessionId', 'sources']);
    const sources = done.sources as Record<string, unknown>[];
    expect(sources).toHaveLength(1);
    // `span`: where the passage is in the document's Markdown (issue 39; a Markdown file has no pages or regions).
    expect(Object.keys(sources[0]!).sort()).toEqual([
      'chunkId',
      'content',
      'documentId',
      'filename',
      'marker',
      'sectionId',
      'sectionLevel',
      'sectionTitle',
      'span',
    ]);
    expect(sources[0]).toMatchObject({ filename: 'report.md', sectionTitle: 'Revenue', sectionLevel: 2 });
  });

  it('names the section tools in tool_call events at deep depth', async () => {
    useScript([{ toolCalls: [{ name: 'scan_sections', arguments: { query: 'costs' } }] }, { text: 'Costs fell.' }]);
    const events = dataEvents(await (await postResearch({ q: 'Costs?', depth: 'deep' })).text());
    expect(events[0]).toEqual({ type: 'tool_call', query: 'costs', tool: 'scan_sections' });
  });

  it('sends one error event and closes the stream when the provider fails after the stream opened', async () => {
    useScript([{ text: ['Revenue'], errorAfterDeltas: 1, error: new DossierError('provider_error', 'The model provider failed: overloaded') }]);
    const events = dataEvents(await (await postResearch({ q: 'Revenue?' })).text());
    expect(events).toEqual([
      { type: 'chunk', content: 'Revenue' },
      {
        type: 'error',
        message: expect.stringMatching(/^The model provider failed: overloaded; the model failed after part of the answer was streamed/),
        code: 'provider_error',
      },
    ]);
  });

  it('says what the run waits on in SSE comments, and reports invented citations on done (issue 12)', async () => {
    useScript([{ toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] }, { text: 'Revenue grew [S1][S99].' }]);
    const body = await (await postResearch({ q: 'Revenue?', depth: 'quick' })).text();
    expect(body).toContain(': waiting for the model (turn 1 of 5)\n\n');
    expect(body).toContain(': waiting for the model (turn 2 of 5)\n\n');
    const done = dataEvents(body).at(-1) as Record<string, unknown>;
    expect(done).toMatchObject({ type: 'done', unresolvedCitations: ['S99'] });
    const session = await t.request('GET', `/v1/collections/${cid}/research/${done.sessionId}`);
    expect(session.body).toMatchObject({ response: 'Revenue grew [S1].', unresolvedCitations: ['S99'] });
  });

  it('logs every failed run once as a JSON line with its cause, streamed or sync (issue 12)', async () => {
    const failure = () => new DossierError('provider_error', 'Anthropic request failed (HTTP 529: Overloaded)', { retryable: true });
    t.logged.length = 0;
    useScript([{ error: failure() }]);
    const events = dataEvents(await (await postResearch({ q: 'Streamed?' })).text());
    expect(events.at(-1)).toEqual({ type: 'error', message: 'Anthropic request failed (HTTP 529: Overloaded)', code: 'provider_error' });
    useScript([{ error: failure() }]);
    expectError(await t.request('POST', `/v1/collections/${cid}/research/sync`, { json: { q: 'Sync?' } }), 503);
    const lines = t.logged.filter((l) => /research|provider/.test(l.msg));
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'research run failed',
        collectionId: cid,
        depth: 'balanced',
        code: 'provider_error',
        error: 'Anthropic request failed (HTTP 529: Overloaded)',
      }),
      expect.objectContaining({ level: 'warn', msg: 'research run failed', collectionId: cid, depth: 'balanced', code: 'provider_error' }),
    ]);
  });

  it('answers with an HTTP error, not a stream, when the run cannot start', async () => {
    current = real;
    const notConfigured = await t.request('POST', `/v1/collections/${cid}/research`, { json: { q: 'x' }, headers: { accept: 'text/event-stream' } });
    expectError(notConfigured, 400, /No model provider is configured/);
    useScript([]);
    expectError(await t.request('POST', `/v1/collections/${cid}/research`, { json: { q: 'x', extra: 1 } }), 400, /unknown field 'extra'/);
    expectError(await t.request('POST', `/v1/collections/${cid}/research`, { json: { q: 'x', depth: 'huge' } }), 400);
    expectError(await t.request('POST', `/v1/collections/${cid}/research`, { json: { q: 'x' }, auth: null }), 401);
    expectError(await t.request('POST', `/v1/collections/${cid}/research`, { json: { q: 'x' }, auth: otherKey }), 404);
    expectError(await t.request('POST', `/v1/collections/${cid}/research`, { json: { q: 'x' }, auth: t.testKey }), 404);
  });

  it('cancels the run and its provider call when the client disconnects, and saves no session', async () => {
    const model = useScript([{ text: ['Partial', ' never sent'], hangAfterDeltas: 1 }]);
    const before = (await t.request('GET', `/v1/collections/${cid}/research`)).body.length;
    const abort = new AbortController();
    const res = await postResearch({ q: 'Slow question' }, { signal: abort.signal });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"type":"chunk"')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await waitFor(async () => model.calls[0]?.outcome === 'aborted', 'the provider call to be aborted', 5000);
    expect(model.calls[0]?.signal?.aborted).toBe(true);
    expect((await t.request('GET', `/v1/collections/${cid}/research`)).body).toHaveLength(before);
  });
});

describe('POST /v1/collections/:id/research/sync and the session routes', () => {
  it('returns {answer, sessionId, sources} and saves the session', async () => {
    useScript(SEARCH_THEN_ANSWER);
    const res = await t.request('POST', `/v1/collections/${cid}/research/sync`, { json: { q: 'Revenue?', depth: 'quick' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['answer', 'sessionId', 'sources']);
    expect(res.body.answer).toBe('Revenue grew 12 percent [S1].');
    expect(res.body.sources[0]).toMatchObject({ filename: 'report.md', sectionTitle: 'Revenue' });
    const session = await t.request('GET', `/v1/collections/${cid}/research/${res.body.sessionId}`);
    expect(session.status).toBe(200);
    expect(Object.keys(session.body).sort()).toEqual([
      'createdAt',
      'depth',
      'faithfulness',
      'id',
      'model',
      'query',
      'response',
      'sources',
      'unresolvedCitations',
      'usage',
    ]);
    // Issue 38: the one sentence cites S1, whose passage ("Revenue grew 12 percent in 2024.") shares its key terms.
    expect(session.body.faithfulness).toEqual({
      sentences: 1,
      citedSentences: 1,
      citedSentenceShare: 1,
      citations: 1,
      supportedCitations: 1,
      supportedCitationShare: 1,
    });
    expect(session.body.usage).toMatchObject({ modelCalls: 2, retries: 0 });
    expect(session.body).toMatchObject({
      id: res.body.sessionId,
      query: 'Revenue?',
      response: res.body.answer,
      depth: 'quick',
      model: 'scripted-fast',
      sources: res.body.sources,
    });
  });

  it('maps a failed sync run to the HTTP status of its error', async () => {
    useScript([{ error: new DossierError('rate_limited', 'The model provider is rate limiting this key') }]);
    expectError(await t.request('POST', `/v1/collections/${cid}/research/sync`, { json: { q: 'x' } }), 429, 'The model provider is rate limiting this key');
    // A provider that fails is a dependency failure (spec: 503), and the client learns what failed.
    useScript([{ error: new DossierError('provider_error', 'Anthropic stream failed (terminated)', { retryable: true }) }]);
    expectError(await t.request('POST', `/v1/collections/${cid}/research/sync`, { json: { q: 'x' } }), 503, 'Anthropic stream failed (terminated)');
  });

  it('answers 408 when a run outlives the time limit its depth has in the server configuration (issue 12)', async () => {
    useScript([{ text: ['Thinking'], hangAfterDeltas: 1 }]);
    expectError(
      await t.request('POST', `/v1/collections/${cid}/research/sync`, { json: { q: 'Slow?', depth: 'quick' } }),
      408,
      'The run exceeded its time limit of 1 s',
    );
  });

  it('lists sessions newest first, deletes one with 204, and 404s for another project', async () => {
    useScript([{ text: 'First.' }, { text: 'Second.' }]);
    const first = (await t.request('POST', `/v1/collections/${cid}/research/sync`, { json: { q: 'first' } })).body;
    const second = (await t.request('POST', `/v1/collections/${cid}/research/sync`, { json: { q: 'second' } })).body;
    const list = await t.request('GET', `/v1/collections/${cid}/research`);
    expect(list.status).toBe(200);
    expect(list.body.slice(0, 2).map((s: { id: string }) => s.id)).toEqual([second.sessionId, first.sessionId]);
    const path = `/v1/collections/${cid}/research/${first.sessionId}`;
    expectError(await t.request('GET', path, { auth: otherKey }), 404);
    expectError(await t.request('DELETE', path, { auth: otherKey }), 404);
    expectError(await t.request('GET', `/v1/collections/${cid}/research`, { auth: otherKey }), 404);
    expectError(await t.request('GET', path, { auth: null }), 401);
    const deleted = await t.request('DELETE', path);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe('');
    expectError(await t.request('GET', path), 404);
    expectError(await t.request('DELETE', path), 404);
  });
});

describe('research stream keep-alive (issue 12)', () => {
  it('sends a comment saying what the run waits on while no event comes, and stops when the run ends', async () => {
    const { pump } = await import('../src/routes/research.ts');
    const sent: string[] = [];
    const stream = {
      send: (e: unknown) => sent.push(`data ${JSON.stringify(e)}`),
      comment: (c: string) => sent.push(`: ${c}`),
      close: () => sent.push('closed'),
      signal: new AbortController().signal,
    };
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    async function* run() {
      yield { type: 'progress' as const, message: 'waiting for the model (turn 1 of 5)' };
      await gate;
      yield { type: 'chunk' as const, content: 'Hi' };
    }
    const done = pump(run(), stream, 20);
    await waitFor(async () => sent.filter((l) => l.startsWith(': waiting for the model (turn 1 of 5),')).length >= 2, 'two keep-alive comments', 2000);
    release();
    await done;
    expect(sent[0]).toBe(': waiting for the model (turn 1 of 5)');
    expect(sent.at(-2)).toBe('data {"type":"chunk","content":"Hi"}');
    expect(sent.at(-1)).toBe('closed');
    const count = sent.length;
    // A real wait is the behaviour: three keep-alive periods (20 ms) pass and nothing more is sent.
    await new Promise((r) => setTimeout(r, 60));
    expect(sent).toHaveLength(count);
  });
});
