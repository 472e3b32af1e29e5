/**
 * Core's tool loop driving the real provider adapters against local servers that speak the providers' protocols
 * (issue 12): prompt-cache breakpoints on the wire, retries of overloaded calls decided by core, and SDK console
 * output kept out of the log.
 */
import type { Logger } from '@dossier/core';
import { type AgentEvent, type AgentLoopOptions, type AgentTool, runAgentLoop } from '@dossier/core/internal';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createModelProviderFactory } from '../../src/providers/factory.ts';
import { json, type RecordedRequest, type Reply, sse, startWireServer, type WireServer } from './wire-server.ts';

const KEY = 'sk-ant-test-0123456789abcdefSECRET';
let server: WireServer;

beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const lookup: AgentTool = {
  definition: { name: 'search', description: 'Hybrid search', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
  describe: (args) => ({ query: String(args.query) }),
  run: async (args) => `Revenue grew 12 percent (for ${String(args.query)}). [S1]`,
};

const usage = (input_tokens: number, cache: { read?: number; write?: number } = {}) => ({
  input_tokens,
  output_tokens: 1,
  cache_read_input_tokens: cache.read ?? 0,
  cache_creation_input_tokens: cache.write ?? 0,
});
const start = (u: ReturnType<typeof usage>) => ({
  event: 'message_start',
  data: {
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [], stop_reason: null, usage: u },
  },
});
const stop = (reason: string) => [
  { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 9 } } },
  { event: 'message_stop', data: { type: 'message_stop' } },
];
const toolTurn = (u: ReturnType<typeof usage>) =>
  sse([
    start(u),
    {
      event: 'content_block_start',
      data: { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} } },
    },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"revenue"}' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    ...stop('tool_use'),
  ]);
const answerTurn = (u: ReturnType<typeof usage>, text = 'Revenue grew 12 percent [S1].') =>
  sse([
    start(u),
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    ...stop('end_turn'),
  ]);
const overloaded = (headers: Record<string, string> = {}) => json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, headers);

async function run(over: Partial<AgentLoopOptions> = {}, provider = createModelProviderFactory().create('anthropic', { apiKey: KEY, baseUrl: server.url })) {
  const events: AgentEvent[] = [];
  for await (const ev of runAgentLoop({
    provider,
    model: 'claude-haiku-4-5',
    messages: [
      { role: 'system', content: 'You answer from the documents.' },
      { role: 'user', content: 'How did revenue change?' },
    ],
    tools: [lookup],
    maxIterations: 3,
    timeoutMs: 10_000,
    retry: { maxRetries: 4, baseDelayMs: 10, maxDelayMs: 50 },
    finalTurnNote: 'Answer now.',
    ...over,
  })) {
    events.push(ev);
  }
  return events;
}

/** Where a request carries `cache_control`, as JSON paths. */
function breakpoints(req: RecordedRequest | undefined): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) walk(n, `${path}[${i}]`);
    } else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'cache_control') found.push(`${path} ${JSON.stringify(v)}`);
        else walk(v, path ? `${path}.${k}` : k);
      }
    }
  };
  walk(req?.body, '');
  return found;
}

describe('the tool loop on the Anthropic wire (issue 12)', () => {
  it('marks the stable prefix and the growing conversation as cache breakpoints, and records cache reads and writes', async () => {
    server.reply(toolTurn(usage(20, { write: 1800 })), answerTurn(usage(40, { read: 1800, write: 60 })));
    const events = await run();
    expect(events.at(-1)).toMatchObject({ type: 'done', usage: { inputTokens: 3720, cacheReadTokens: 1800, cacheWriteTokens: 1860, modelCalls: 2 } });
    const [first, second] = server.requests;
    const ephemeral = '{"type":"ephemeral"}';
    expect(breakpoints(first)).toEqual([`messages[0].content[0] ${ephemeral}`, `system[0] ${ephemeral}`, `tools[0] ${ephemeral}`]);
    // The second turn: the previous user turn and the end of the conversation (the tool result) are breakpoints too.
    expect(breakpoints(second)).toEqual([
      `messages[0].content[0] ${ephemeral}`,
      `messages[2].content[0] ${ephemeral}`,
      `system[0] ${ephemeral}`,
      `tools[0] ${ephemeral}`,
    ]);
    expect(second?.body.system).toEqual([{ type: 'text', text: 'You answer from the documents.', cache_control: { type: 'ephemeral' } }]);
    expect(second?.body.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', cache_control: { type: 'ephemeral' } });
    // Both turns send the same prefix (tools and system), byte for byte, so the second reads it from the cache.
    expect(JSON.stringify(second?.body.tools)).toBe(JSON.stringify(first?.body.tools));
  });

  it('keeps the tools on the last turn with tool_choice none, so the cached prefix still matches', async () => {
    server.reply(toolTurn(usage(20)), answerTurn(usage(40)));
    await run({ maxIterations: 2 });
    const last = server.requests[1]?.body;
    expect(last.tool_choice).toEqual({ type: 'none' });
    expect(last.tools.map((t: { name: string }) => t.name)).toEqual(['search']);
    expect(last.messages.at(-1).content.at(-1)).toMatchObject({ type: 'text', text: 'Answer now.', cache_control: { type: 'ephemeral' } });
  });

  it('survives two 529 overloaded answers: core retries the same request, honouring retry-after, and the run answers', async () => {
    server.reply(overloaded({ 'retry-after': '0' }), overloaded({ 'retry-after-ms': '25' }), toolTurn(usage(20)), answerTurn(usage(40)));
    const events = await run();
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      { type: 'retry', iteration: 1, attempt: 1, delayMs: 0, message: 'Anthropic request failed (HTTP 529: Overloaded)' },
      { type: 'retry', iteration: 1, attempt: 2, delayMs: 25, message: 'Anthropic request failed (HTTP 529: Overloaded)' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', answer: 'Revenue grew 12 percent [S1].', usage: { modelCalls: 4, retries: 2 } });
    expect(server.requests).toHaveLength(4);
    expect(server.requests[1]?.body).toEqual(server.requests[0]?.body);
    expect(server.requests[2]?.body).toEqual(server.requests[0]?.body);
  });

  it('retries a dropped connection before any answer text, but reports one that drops after answer text was streamed', async () => {
    const partial = sse(
      [
        start(usage(20)),
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Revenue gr' } } },
      ],
      'hang',
    );
    // The connection drops once the client has read the partial answer. A real wait: the server cannot see the client
    // read the bytes, and dropping the socket at once would race that read.
    const cut: Reply = (res) => {
      partial(res);
      setTimeout(() => res.socket?.destroy(), 100);
    };
    server.reply(sse([start(usage(20))], 'drop'), answerTurn(usage(40)));
    expect((await run()).at(-1)).toMatchObject({ type: 'done', usage: { retries: 1 } });
    server.requests.length = 0;
    server.reply(cut);
    const events = await run();
    expect(events.filter((e) => e.type === 'chunk')).toEqual([{ type: 'chunk', content: 'Revenue gr' }]);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'provider_error', message: expect.stringMatching(/after part of the answer was streamed/) });
    expect(server.requests).toHaveLength(1);
  });

  it("gives up when the provider stays overloaded past the retries, with the provider's message", async () => {
    server.reply(overloaded(), overloaded());
    const events = await run({ retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5 } });
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      code: 'provider_error',
      message: 'Anthropic request failed (HTTP 529: Overloaded) (gave up after 1 retry)',
    });
    expect(server.requests).toHaveLength(2);
  });
});

describe('the tool loop on the OpenAI wire (issue 12)', () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    data: { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: finish }] },
  });
  const usageChunk = (cached: number) => ({
    data: {
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4.1-mini',
      choices: [],
      usage: { prompt_tokens: 2000, completion_tokens: 9, prompt_tokens_details: { cached_tokens: cached } },
    },
  });

  it('keeps a stable prefix with one prompt_cache_key per run and records the cached tokens', async () => {
    const provider = createModelProviderFactory().create('openai', { apiKey: 'sk-test-openai-0123456789', baseUrl: `${server.url}/v1` });
    server.reply(
      sse([
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"query":"revenue"}' } }] }),
        chunk({}, 'tool_calls'),
        usageChunk(0),
        { data: '[DONE]' },
      ]),
      sse([chunk({ content: 'Grew [S1].' }), chunk({}, 'stop'), usageChunk(1920), { data: '[DONE]' }]),
    );
    const events = await run({ model: 'gpt-4.1-mini', maxIterations: 2 }, provider);
    expect(events.at(-1)).toMatchObject({ type: 'done', usage: { inputTokens: 4000, cacheReadTokens: 1920, cacheWriteTokens: 0 } });
    const [first, second] = server.requests.map((r) => r.body);
    expect(first.prompt_cache_key).toEqual(expect.any(String));
    expect(second.prompt_cache_key).toBe(first.prompt_cache_key);
    expect(second.tool_choice).toBe('none');
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(second.messages.slice(0, 2)).toEqual(first.messages);
  });
});

describe('SDK console output (issue 12)', () => {
  const saved = { anthropic: process.env.ANTHROPIC_LOG, openai: process.env.OPENAI_LOG };
  afterEach(() => {
    vi.restoreAllMocks();
    process.env.ANTHROPIC_LOG = saved.anthropic;
    process.env.OPENAI_LOG = saved.openai;
    if (saved.anthropic === undefined) delete process.env.ANTHROPIC_LOG;
    if (saved.openai === undefined) delete process.env.OPENAI_LOG;
  });

  it("never reaches the console, even with the SDKs' debug logging switched on by the environment", async () => {
    process.env.ANTHROPIC_LOG = 'debug';
    process.env.OPENAI_LOG = 'debug';
    const printed = (['log', 'debug', 'info', 'warn', 'error'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    const lines: string[] = [];
    const log: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
    const factory = createModelProviderFactory({ log });
    server.reply(answerTurn(usage(10)), overloaded());
    await run({}, factory.create('anthropic', { apiKey: KEY, baseUrl: server.url }));
    await run(
      { retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } },
      factory.create('openai', { apiKey: 'sk-test-openai-0123456789', baseUrl: `${server.url}/v1` }),
    );
    for (const spy of printed) expect(spy).not.toHaveBeenCalled();
  });
});
