import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, sse, startWireServer, type WireServer } from '../../adapters/test/providers/wire-server.ts';
import { type Json, startTestServer, type TestServer } from './helpers.ts';

/**
 * A hosted agent end to end (issue 17): the real server, the project's own Anthropic key, and a local server that
 * speaks Anthropic's streaming protocol to the official SDK.
 */

const PROJECT_KEY = 'sk-ant-project-0123456789abcdef';
let wire: WireServer;
let t: TestServer;
let token: string;
let collectionId: string;

beforeAll(async () => {
  wire = await startWireServer();
  t = await startTestServer({ config: { anthropicBaseUrl: wire.url, providerRetries: 0 } });
  token = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  collectionId = (await t.createCollection({ name: 'Finance' })).id;
  await t.ingest(collectionId, 'report.md', '# Annual report\n\n## Revenue\n\nRevenue grew 12 percent in 2024.\n');
  await t.server.dossier.idle();
  const key = await t.request('POST', `/v1/projects/${t.projectId}/provider-keys`, { json: { provider: 'provider_a', key: PROJECT_KEY, name: 'Team' } });
  expect(key.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await wire?.close();
});

const start = {
  event: 'message_start',
  data: {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 50, output_tokens: 1 },
    },
  },
};
const stop = (reason: string) => [
  { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 9 } } },
  { event: 'message_stop', data: { type: 'message_stop' } },
];
const toolTurn = (input: unknown): Reply =>
  sse([
    start,
    {
      event: 'content_block_start',
      data: { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'search_collection', input: {} } },
    },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    ...stop('tool_use'),
  ]);
const answerTurn = (parts: string[]): Reply =>
  sse([
    start,
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    ...parts.map((text) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    ...stop('end_turn'),
  ]);

describe('a hosted agent over the Anthropic wire protocol', () => {
  it('streams a run that searches and answers, paid by the project key, and returns structuredOutput in sync', async () => {
    const agent = (
      await t.request('POST', `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents`, {
        auth: token,
        json: { slug: 'analyst', name: 'Analyst', systemPrompt: 'Answer from the reports.', model: 'claude-haiku-4-5', allowedCollectionIds: [collectionId] },
      })
    ).body as Json;
    wire.reply(toolTurn({ collectionId, query: 'revenue 2024' }), answerTurn(['Revenue grew ', '12 percent in 2024 [S1].']));
    const res = await fetch(`${t.url}/v1/orgs/${t.orgId}/projects/${t.projectId}/agents/${agent.slug}/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'How did revenue change?' }),
    });
    const events = (await res.text())
      .split('\n\n')
      .filter((b) => b.startsWith('data: '))
      .map((b) => JSON.parse(b.slice(6)));
    expect(events.map((e) => e.type)).toEqual(['run_started', 'tool_call', 'tool_result', 'chunk', 'chunk', 'done']);
    expect(events.at(-1)).toMatchObject({ status: 'succeeded', response: 'Revenue grew 12 percent in 2024 [S1].', iterationsUsed: 2 });
    expect(wire.requests).toHaveLength(2);
    for (const request of wire.requests) {
      expect(request.headers['x-api-key'] ?? request.headers.authorization, JSON.stringify(request.headers)).toMatch(PROJECT_KEY);
      expect(request.body.stream).toBe(true);
      expect(request.body.tools.map((tool: Json) => tool.name)).toEqual([
        'search_collection',
        'scan_sections',
        'get_section_chunks',
        'list_documents',
        'get_document',
      ]);
    }
    const toolResult = JSON.stringify(wire.requests[1]!.body.messages.at(-1));
    expect(toolResult).toContain('Revenue grew 12 percent in 2024.');
    expect(toolResult).toContain('untrusted_tool_result');

    wire.requests.length = 0;
    await t.request('PATCH', `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents/analyst`, {
      auth: token,
      json: { outputSchema: { type: 'object', properties: { growthPercent: { type: 'number' } }, required: ['growthPercent'] } },
    });
    wire.reply(answerTurn(['{"growthPercent": 12}']));
    const sync = await t.request('POST', `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents/analyst/invoke/sync`, {
      auth: token,
      json: { query: 'Growth as JSON?' },
    });
    expect(sync.status, JSON.stringify(sync.body)).toBe(200);
    expect(sync.body).toMatchObject({ status: 'succeeded', structuredOutput: { growthPercent: 12 }, warnings: [] });
    expect(String(wire.requests[0]!.body.system?.[0]?.text ?? JSON.stringify(wire.requests[0]!.body.system))).toContain('"growthPercent"');
  });
});
