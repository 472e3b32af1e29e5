import type { ModelResolver } from '@dossier/core';
import { DossierError } from '@dossier/core';
import { ScriptedModel, type ScriptedTurn, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSI, dossier, dossierTty, ndjson, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let cid: string;
let real: ModelResolver;
let current: ModelResolver;
let home: { home: string; cleanup: () => void };

const REPORT = '# Annual report\n\n## Revenue\n\nRevenue grew 12 percent in 2024.\n\n## Costs\n\nCosts fell by 3 percent.\n';
const SEARCH_THEN_ANSWER: ScriptedTurn[] = [
  { toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] },
  { text: ['Revenue grew ', '12 percent [S1].'] },
];

beforeAll(async () => {
  t = await startTestServer({ config: { providerRetries: 0 } }); // scripted failures end a run at once
  // The model double: the running server's resolver delegates to the scripted one each test installs
  // (the seam of the server's own research tests); `real` is the server's, with no provider configured.
  const context = dossierContext(t.server.dossier);
  real = context.models;
  current = real;
  context.models = { resolve: (...a) => current.resolve(...a), hasProvider: (a) => current.hasProvider(a) };
  cid = (await t.createCollection({ name: 'Research' })).id;
  await t.ingest(cid, 'report.md', REPORT);
  home = tempHome();
});
afterAll(async () => {
  home?.cleanup();
  await t?.close();
});

const useScript = (turns: ScriptedTurn[]) => {
  const model = new ScriptedModel(turns);
  const resolver = scriptedResolver(model);
  current = resolver;
  return resolver;
};
const env = () => ({ SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey });
const research = (args: string[]) => dossier(home.home, ['research', ...args, '-c', cid], { env: env() });

describe('research with a scripted model', () => {
  it('emits NDJSON when piped: one object per event, exactly the events of the stream', async () => {
    useScript(SEARCH_THEN_ANSWER);
    const r = await research(['How did revenue change?']);
    expect(r.code, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['tool_call', 'chunk', 'chunk', 'done']);
    expect(events[0]).toEqual({ type: 'tool_call', query: 'revenue' });
    expect(events[1]).toEqual({ type: 'chunk', content: 'Revenue grew ' });
    expect(events[3]).toMatchObject({ type: 'done', sessionId: expect.any(String) });
    expect((events[3]!.sources as { filename: string; sectionTitle: string }[])[0]).toMatchObject({ filename: 'report.md', sectionTitle: 'Revenue' });
  });

  it('--no-stream --json returns {answer, sessionId, sources}, and passes --depth and --model', async () => {
    const resolver = useScript(SEARCH_THEN_ANSWER);
    const r = await research(['Revenue?', '--no-stream', '--json', '--depth', 'deep', '--model', 'claude-sonnet-4-6']);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(Object.keys(body)).toEqual(['answer', 'sessionId', 'sources']);
    expect(body.answer).toBe('Revenue grew 12 percent [S1].');
    expect(resolver.requests[0]).toMatchObject({ modelId: 'claude-sonnet-4-6', tier: 'best' });
    const session = await t.request('GET', `/v1/collections/${cid}/research/${body.sessionId}`);
    expect(session.body).toMatchObject({ depth: 'deep', model: 'claude-sonnet-4-6' });
  });

  it('--no-stream without --json prints the answer and a citation block', async () => {
    useScript(SEARCH_THEN_ANSWER);
    const r = await research(['Revenue?', '--no-stream']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Revenue grew 12 percent [S1].\n\nSources\n[S1] report.md › Revenue\n');
  });

  it('exits 4 for a provider failure whether streamed or not, and the error event is also in the NDJSON (issue 12)', async () => {
    const overloaded = () => new DossierError('provider_error', 'Anthropic request failed (HTTP 529: Overloaded)', { retryable: true });
    useScript([{ error: overloaded() }]);
    const streamed = await research(['Revenue?']);
    expect(streamed.code, streamed.stderr).toBe(4);
    expect(ndjson(streamed.stdout).at(-1)).toEqual({ type: 'error', message: 'Anthropic request failed (HTTP 529: Overloaded)', code: 'provider_error' });
    expect(streamed.stderr).toContain('research failed: Anthropic request failed (HTTP 529: Overloaded)');
    useScript([{ error: overloaded() }]);
    const sync = await research(['Revenue?', '--no-stream']);
    expect(sync.code, sync.stderr).toBe(4);
    useScript([{ text: ['Revenue'], errorAfterDeltas: 1, error: new DossierError('provider_error', 'The model provider failed: overloaded') }]);
    expect((await research(['Revenue?'])).code).toBe(4);
    useScript([{ error: new DossierError('rate_limited', 'Anthropic rate limit reached (HTTP 429)', { retryable: true }) }]);
    expect((await research(['Revenue?'])).code).toBe(1);
  });

  it('lists exactly the cited sources, says when the answer cites none, and flags an invented [S99] (issue 12)', async () => {
    useScript([{ toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] }, { text: 'Revenue grew [S1][S99].' }]);
    const caught = await research(['Revenue?', '--no-stream']);
    expect(caught.code, caught.stderr).toBe(0);
    expect(caught.stdout).toBe('Revenue grew [S1].\n\nSources\n[S1] report.md › Revenue\n[S99] matches no retrieved source: removed from the saved answer.\n');
    useScript([{ toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] }, { text: 'Revenue grew, the report says.' }]);
    const uncited = await research(['Revenue?', '--no-stream']);
    expect(uncited.stdout).toBe('Revenue grew, the report says.\n\nThe answer cites no sources.\n');
  });

  it('exits 1 with a next step when the server has no model provider', async () => {
    current = real;
    const r = await research(['Revenue?']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No model provider is configured/);
    expect(r.stderr).toContain('dossier provider-keys set');
  });

  it('rejects an unknown depth with exit 2', async () => {
    const r = await research(['Revenue?', '--depth', 'bottomless']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/quick, balanced, deep, exhaustive/);
  });

  it('on a terminal streams the answer, shows tool calls, then prints a coloured citation block', async () => {
    useScript(SEARCH_THEN_ANSWER);
    const r = await dossierTty(home.home, ['research', 'How did revenue change?', '-c', cid], { env: env() });
    expect(r.code, r.stdout).toBe(0);
    const plain = r.stdout.replace(/\r\n/g, '\n');
    expect(plain).toMatch(ANSI);
    const text = plain.replace(new RegExp(ANSI.source, 'g'), '');
    expect(text).toContain('› search: revenue\n');
    expect(text).toContain('… waiting for the model (turn 1 of 10)');
    expect(text).toContain('Revenue grew 12 percent [S1].\n\nSources\n[S1] report.md › Revenue\n');
    expect(text).not.toContain('"type"');
  });

  it('on a terminal warns under the streamed answer about a citation that matches no source (issue 12)', async () => {
    useScript([{ toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] }, { text: ['Revenue grew ', '12 percent [S1] [S99].'] }]);
    const r = await dossierTty(home.home, ['research', 'How did revenue change?', '-c', cid], { env: env() });
    expect(r.code, r.stdout).toBe(0);
    const text = r.stdout.replace(/\r\n/g, '\n').replace(new RegExp(ANSI.source, 'g'), '');
    expect(text).toContain(
      'Revenue grew 12 percent [S1] [S99].\n\nSources\n[S1] report.md › Revenue\n[S99] matches no retrieved source: removed from the saved answer.\n',
    );
  });
});
