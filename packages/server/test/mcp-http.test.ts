import type { OAuthScope, Principal } from '@dossier/core';
import { isClaimExtraction, recordClaimsTurn, ScriptedModel, type ScriptedTurn } from '@dossier/core/testing';
import { TOOLS } from '@dossier/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedReports, startTestServer, type TestServer, waitFor } from './helpers.ts';

let t: TestServer;
let cid: string;
let docId: string;
/** The principal of /mcp requests sent without credentials (the test-only fixed principal); null: none. */
let fixed: Principal | null = null;
const clients: Client[] = [];

/** Research searches once, then writes `answer`; claim extraction records one claim. */
let turns = 0;
let answer: ScriptedTurn = { text: ['Revenue grew ', '12 percent [S1].'] };
const model = new ScriptedModel((request): ScriptedTurn => {
  if (isClaimExtraction(request))
    return recordClaimsTurn([{ section: 1, text: 'Revenue grew 12 percent in 2024.', importance: 4, sourceText: 'Revenue grew 12 percent' }]);
  turns += 1;
  return turns % 2 === 1 ? { toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] } : answer;
});

const oauth = (scopes: OAuthScope[]): Principal => ({ kind: 'oauth', accountId: 'acct-1', clientId: 'client-1', projectId: t.projectId, env: 'live', scopes });

/** An SDK client over Streamable HTTP, with a bearer credential or (null) none. */
async function connect(credential: string | null): Promise<Client> {
  const headers: Record<string, string> = credential ? { authorization: `Bearer ${credential}` } : {};
  const client = new Client({ name: 'mcp-http-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** A raw JSON-RPC POST to /mcp. */
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    body: JSON.stringify(body),
  });
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

beforeAll(async () => {
  t = await startTestServer({ mcpPrincipal: () => fixed });
  ({ cid, docId } = await seedReports(t, model));
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await t?.close();
});

describe('MCP over Streamable HTTP at /mcp', () => {
  it("serves the tools (the spec's 30 and the extension tools) to an SDK client with a project API key, in the key's sandbox", async () => {
    const client = await connect(t.liveKey);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    const listed = await call(client, 'svc_list_collections');
    expect((listed.structuredContent as { collections: { id: string }[] }).collections.map((c) => c.id)).toEqual([cid]);
    const search = await call(client, 'svc_search', { collectionId: cid, query: 'revenue growth' });
    expect(JSON.stringify(search.structuredContent)).toContain('Revenue grew 12 percent');
    const markdown = await call(client, 'svc_get_document_markdown', { documentId: docId });
    expect(text(markdown)).toContain('## Revenue');
    const sandboxed = await connect(t.testKey);
    expect((await call(sandboxed, 'svc_list_collections')).structuredContent).toEqual({ collections: [] });
    const hidden = await call(sandboxed, 'svc_get_document', { documentId: docId });
    expect(hidden.isError).toBe(true);
    expect(text(hidden)).toMatch(/not found \(HTTP 404\)/i);
  });

  it("reports the API's own validation message as an isError result", async () => {
    const client = await connect(t.liveKey);
    const badBatch = await call(client, 'svc_batch_delete_documents', { collectionId: cid, documentIds: ['not-a-uuid'] });
    expect(badBatch.isError).toBe(true);
    expect(text(badBatch)).toMatch(/must be a UUID.*\(HTTP 400\)/);
  });

  it('researches with progress notifications, and a cancelled call stops the run without saving it', async () => {
    const client = await connect(t.liveKey);
    const progress: string[] = [];
    const done = (await client.callTool(
      { name: 'svc_research', arguments: { collectionId: cid, question: 'How did revenue change?', depth: 'quick' } },
      undefined,
      {
        onprogress: (note) => progress.push(note.message ?? ''),
      },
    )) as CallToolResult;
    expect(done.structuredContent).toMatchObject({ answer: 'Revenue grew 12 percent [S1].' });
    expect(progress, JSON.stringify(progress)).toContain('search: revenue');

    answer = { text: ['Revenue '], hangAfterDeltas: 1 };
    const sessions = async () => ((await t.request('GET', `/v1/collections/${cid}/research`)).body as unknown[]).length;
    const [before, callsBefore] = [await sessions(), model.calls.length];
    const cancel = new AbortController();
    const called = client.callTool({ name: 'svc_research', arguments: { collectionId: cid, question: 'Revenue?' } }, undefined, { signal: cancel.signal });
    const rejected = expect(called).rejects.toThrow(/abort/i);
    await waitFor(async () => model.calls.length >= callsBefore + 2 && model.calls.at(-1)!.outcome === 'running', 'the answer turn to start', 10_000);
    cancel.abort();
    await rejected;
    await waitFor(async () => model.calls.at(-1)!.outcome === 'aborted', 'the model call to be aborted', 10_000);
    expect(await sessions()).toBe(before);
  });

  it('refuses without credentials (401), and a session to any caller but its own (404)', async () => {
    expect((await post(initialize)).status).toBe(401);
    const opened = await post(initialize, { authorization: `Bearer ${t.liveKey}` });
    const session = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    expect(session).toBeTruthy();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const stolen = await post(list, { authorization: `Bearer ${t.testKey}`, 'mcp-session-id': session });
    expect(stolen.status).toBe(404);
    expect(await stolen.json()).toMatchObject({ error: { message: 'Session not found' } });
    const own = await post(list, { authorization: `Bearer ${t.liveKey}`, 'mcp-session-id': session });
    expect(own.status).toBe(200);
    await own.body?.cancel();
    const ended = await fetch(`${t.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${t.liveKey}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(ended.status).toBe(200);
    expect((await post(list, { authorization: `Bearer ${t.liveKey}`, 'mcp-session-id': session })).status).toBe(404);
  });

  it("refuses a foreign Origin or Host with 403 (DNS-rebinding protection) and accepts this server's own", async () => {
    const auth = { authorization: `Bearer ${t.liveKey}` };
    const foreign = await post(initialize, { ...auth, origin: 'http://evil.example.com' });
    expect(foreign.status).toBe(403);
    expect(JSON.stringify(await foreign.json())).toContain('evil.example.com');
    const own = await post(initialize, { ...auth, origin: t.url });
    expect(own.status).toBe(200);
    await own.body?.cancel();
    const localhost = await post(initialize, { ...auth, origin: t.url.replace('127.0.0.1', 'localhost') });
    expect(localhost.status).toBe(200);
    await localhost.body?.cancel();
  });
});

describe('OAuth scopes on the MCP tools', () => {
  const fullTools = TOOLS.filter((tool) => tool.scope === 'svc:full');

  it('refuses every svc:full tool to a svc:read token with 403 insufficient_scope naming the scope', async () => {
    fixed = oauth(['svc:read']);
    const opened = await post(initialize);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    expect(fullTools.length).toBeGreaterThan(10);
    for (const tool of fullTools) {
      const res = await post(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: tool.name, arguments: { collectionId: cid } } },
        { 'mcp-session-id': session },
      );
      expect(res.status, tool.name).toBe(403);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="insufficient_scope"');
      expect(challenge).toContain('scope="svc:full"');
      expect(challenge).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
      expect(await res.json()).toMatchObject({ id: 7, error: { message: expect.stringContaining(`${tool.name} needs the svc:full scope`) } });
    }
    expect((await t.request('GET', '/v1/collections')).body).toHaveLength(1);
  });

  it('lets a svc:read token search and read its sandbox through an SDK client, which sees the refusal as an error', async () => {
    fixed = oauth(['svc:read']);
    const client = await connect(null);
    const search = await call(client, 'svc_search', { collectionId: cid, query: 'revenue' });
    expect(search.isError, text(search)).toBeFalsy();
    expect(JSON.stringify(search.structuredContent)).toContain('Revenue grew 12 percent');
    expect((await call(client, 'svc_get_document', { documentId: docId })).structuredContent).toMatchObject({ id: docId, status: 'ready' });
    await expect(call(client, 'svc_delete_collection', { collectionId: cid })).rejects.toThrow(/insufficient_scope/);
    expect((await t.request('GET', `/v1/collections/${cid}`)).status).toBe(200);
  });

  it('serves the read-only evaluation tools (extension tools) to a svc:read token: runs, one run, a comparison', async () => {
    const set = await t.request('POST', `/v1/collections/${cid}/golden-sets`, {
      json: {
        name: 'revenue',
        queries: [
          { id: 'r', query: 'revenue growth', relevant: [{ target: docId, grade: 2 }] },
          { id: 'x', query: 'glaciers', relevant: [{ target: 'missing-doc' }] },
        ],
      },
    });
    const base = (await t.request('POST', `/v1/collections/${cid}/evaluations`, { json: { setId: set.body.id } })).body;
    const candidate = (await t.request('POST', `/v1/collections/${cid}/evaluations`, { json: { setId: set.body.id, settings: { limit: 1 } } })).body;
    fixed = oauth(['svc:read']);
    const client = await connect(null);
    const runs = await call(client, 'svc_list_evaluations', { collectionId: cid, limit: 5 });
    expect(runs.isError, text(runs)).toBeFalsy();
    expect((runs.structuredContent as { runs: { id: string }[] }).runs.map((run) => run.id)).toEqual([candidate.id, base.id]);
    const one = await call(client, 'svc_get_evaluation', { collectionId: cid, runId: base.id });
    expect(one.structuredContent).toMatchObject({
      id: base.id,
      metrics: { queries: 2, ndcg10: 0.5 },
      perQuery: [
        { id: 'r', expected: [{ target: docId, rank: 1 }] },
        { id: 'x', ndcg10: 0 },
      ],
    });
    const compared = await call(client, 'svc_compare_evaluations', { collectionId: cid, base: base.id, candidate: candidate.id });
    expect(compared.structuredContent).toMatchObject({ base: { id: base.id }, candidate: { id: candidate.id }, delta: { ndcg10: 0 } });
    const missing = await call(client, 'svc_get_evaluation', { collectionId: cid, runId: 'nope' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/not found \(HTTP 404\)/i);
  });

  it('lets a svc:full token create and delete in its sandbox', async () => {
    fixed = oauth(['svc:full']);
    const client = await connect(null);
    const created = await call(client, 'svc_create_collection', { name: 'From an assistant' });
    expect(created.isError, text(created)).toBeFalsy();
    const id = (created.structuredContent as { id: string }).id;
    expect((await t.request('GET', `/v1/collections/${id}`)).body).toMatchObject({ name: 'From an assistant' });
    expect((await call(client, 'svc_delete_collection', { collectionId: id })).structuredContent).toEqual({ deleted: true, collectionId: id });
  });
});

/** The SSE messages of a response body as they arrive: `id` and parsed `data` (priming events have empty data). */
async function* sseEvents(res: Response): AsyncGenerator<{ id?: string; retry?: string; data: unknown }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const fields = Object.fromEntries(
        buffer
          .slice(0, cut)
          .split('\n')
          .filter((line) => !line.startsWith(':'))
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
      );
      buffer = buffer.slice(cut + 2);
      if ('id' in fields || 'data' in fields) yield { id: fields.id, retry: fields.retry, data: fields.data ? JSON.parse(fields.data) : null };
    }
  }
}

describe('resumable streams', () => {
  it('resumes a dropped tool-call stream with Last-Event-ID and delivers the result produced meanwhile', async () => {
    fixed = null;
    const auth = { authorization: `Bearer ${t.liveKey}` };
    const opened = await post(initialize, auth);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    let release = () => {};
    answer = { text: ['Revenue grew ', '12 percent [S1].'], waitFor: new Promise<void>((resolve) => (release = resolve)) };
    const callsBefore = model.calls.length;
    const call = {
      jsonrpc: '2.0',
      id: 42,
      method: 'tools/call',
      params: { name: 'svc_research', arguments: { collectionId: cid, question: 'Revenue?' }, _meta: { progressToken: 'p1' } },
    };
    const first = await post(call, { ...auth, 'mcp-session-id': session });
    const events = sseEvents(first);
    const priming = (await events.next()).value!;
    expect(priming).toMatchObject({ data: null, retry: '2000' });
    let lastEventId = priming.id!;
    for await (const event of events) {
      lastEventId = event.id ?? lastEventId;
      if ((event.data as { method?: string }).method === 'notifications/progress' && model.calls.length >= callsBefore + 2) break;
    }
    await first.body?.cancel(); // the stream drops while the answer waits on the model
    release();
    const resumed = await fetch(`${t.url}/mcp`, {
      headers: { ...auth, accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', 'last-event-id': lastEventId },
      signal: AbortSignal.timeout(20_000),
    });
    expect(resumed.status).toBe(200);
    let result: CallToolResult | undefined;
    for await (const event of sseEvents(resumed)) {
      const message = event.data as { id?: number; result?: CallToolResult };
      if (message?.id !== 42) continue;
      result = message.result;
      break;
    }
    expect(result?.structuredContent).toMatchObject({ answer: 'Revenue grew 12 percent [S1].' });
    await resumed.body?.cancel().catch(() => undefined);
  });
});

describe('long waits over HTTP', () => {
  it('sends progress while svc_wait_for_document waits, and a cancelled wait ends at once', async () => {
    const idle = await startTestServer({ config: { workers: 0 } }); // no pipeline: the document stays pending
    try {
      const collection = await idle.createCollection({ name: 'Waiting' });
      const pending = await idle.upload(collection.id, 'late.md', '# Late\n\nNot processed yet.\n');
      const client = new Client({ name: 'mcp-http-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${idle.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${idle.liveKey}` } } }),
      );
      const cancel = new AbortController();
      const progress: string[] = [];
      const waiting = client.callTool({ name: 'svc_wait_for_document', arguments: { documentId: pending.id } }, undefined, {
        signal: cancel.signal,
        onprogress: (note) => progress.push(note.message ?? ''),
      });
      const rejected = expect(waiting).rejects.toThrow(/abort/i);
      await waitFor(async () => progress.length > 0, 'a progress notification', 15_000);
      expect(progress[0]).toMatch(/still processing after \d+ s/);
      cancel.abort();
      await rejected;
      const ended = await waitFor(
        async () => idle.logged.find((line) => line.msg === 'mcp tool call' && line.tool === 'svc_wait_for_document'),
        'the tool call to end',
        10_000,
      );
      expect(ended).toMatchObject({ isError: true });
      await client.close();
    } finally {
      await idle.close();
    }
  });
});
