import type { ChatRequest, ChatStreamEvent, ModelProvider } from '@dossier/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelProviderFactory } from '../../src/providers/factory.ts';
import { collect, json, sentKey, sse, startWireServer, type WireServer } from './wire-server.ts';

const KEY = 'sk-ant-test-0123456789abcdefSECRET';
let server: WireServer;
let provider: ModelProvider;

beforeAll(async () => {
  server = await startWireServer();
  provider = createModelProviderFactory().create('anthropic', { apiKey: KEY, baseUrl: server.url });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const searchTool = { name: 'search', description: 'Hybrid search', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } };

/** A second step of a research loop: the model asked for two searches and gets both results back. */
const toolRoundTrip: ChatRequest = {
  model: 'claude-haiku-4-5',
  maxTokens: 512,
  temperature: 0,
  tools: [searchTool],
  messages: [
    { role: 'system', content: 'Answer from the documents.' },
    { role: 'user', content: 'What changed?' },
    {
      role: 'assistant',
      content: 'Let me search.',
      toolCalls: [
        { id: 'toolu_1', name: 'search', arguments: { q: 'revenue' } },
        { id: 'toolu_2', name: 'search', arguments: { q: 'costs' } },
      ],
    },
    { role: 'tool', toolCallId: 'toolu_1', name: 'search', content: 'Revenue grew.' },
    { role: 'tool', toolCallId: 'toolu_2', name: 'search', content: 'Costs fell.' },
  ],
};

const message = (content: unknown[], stop_reason: string, usage = { input_tokens: 120, output_tokens: 30 }) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-4-5',
  content,
  stop_reason,
  stop_sequence: null,
  usage,
});

const streamStart = (input_tokens = 50) => [
  { event: 'message_start', data: { type: 'message_start', message: message([], null as never, { input_tokens, output_tokens: 1 }) } },
];
const textBlock = (index: number, parts: string[]) => [
  { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } },
  ...parts.map((text) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } } })),
  { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
];
const toolBlock = (index: number, id: string, fragments: string[]) => [
  { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: 'search', input: {} } } },
  ...fragments.map((partial_json) => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } },
  })),
  { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
];
const streamEnd = (stop_reason: string, output_tokens: number) => [
  { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens } } },
  { event: 'message_stop', data: { type: 'message_stop' } },
];

describe('Anthropic provider at the wire', () => {
  it('sends tools as input_schema and tool results as tool_result blocks of one user turn, with the key in its auth header', async () => {
    server.reply(json(200, message([{ type: 'text', text: 'Revenue grew while costs fell.' }], 'end_turn')));
    await provider.chat(toolRoundTrip);
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/v1/messages');
    expect(sentKey(req)).toBe(KEY);
    expect(req?.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 512,
      temperature: 0,
      system: 'Answer from the documents.',
      tools: [{ name: 'search', description: 'Hybrid search', input_schema: searchTool.parameters }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What changed?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me search.' },
            { type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'revenue' } },
            { type: 'tool_use', id: 'toolu_2', name: 'search', input: { q: 'costs' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Revenue grew.' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Costs fell.' },
          ],
        },
      ],
    });
  });

  it('parses text, tool calls, stop reason and usage of a whole answer', async () => {
    server.reply(
      json(
        200,
        message(
          [
            { type: 'text', text: 'I will search.' },
            { type: 'tool_use', id: 'toolu_9', name: 'search', input: { q: 'margins' } },
          ],
          'tool_use',
          { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 5 } as never,
        ),
      ),
    );
    const result = await provider.chat({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hi' }], tools: [searchTool] });
    expect(result).toEqual({
      text: 'I will search.',
      toolCalls: [{ id: 'toolu_9', name: 'search', arguments: { q: 'margins' } }],
      stopReason: 'tool_calls',
      usage: { inputTokens: 105, outputTokens: 20, cacheReadTokens: 5, cacheWriteTokens: 0 },
    });
    expect(server.requests[0]?.body.max_tokens).toBe(4096);
  });

  it('streams text deltas and tool calls in order, assembling tool input from input_json_delta fragments, then done', async () => {
    server.reply(
      sse([
        ...streamStart(50),
        { event: 'ping', data: { type: 'ping' } },
        ...textBlock(0, ['Let me ', 'look.']),
        ...toolBlock(1, 'toolu_a', ['{"q": "rev', 'enue", "li', 'mit": 5}']),
        ...toolBlock(2, 'toolu_b', ['']),
        ...streamEnd('tool_use', 42),
      ]),
    );
    const events = await collect(provider.stream({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hi' }], tools: [searchTool] }));
    expect(events).toEqual<ChatStreamEvent[]>([
      { type: 'text', delta: 'Let me ' },
      { type: 'text', delta: 'look.' },
      { type: 'tool_call', call: { id: 'toolu_a', name: 'search', arguments: { q: 'revenue', limit: 5 } } },
      { type: 'tool_call', call: { id: 'toolu_b', name: 'search', arguments: {} } },
      { type: 'done', stopReason: 'tool_calls', usage: { inputTokens: 50, outputTokens: 42, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    ]);
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it('maps 529 overloaded_error to a retryable provider_error', async () => {
    server.reply(json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ name: 'DossierError', code: 'provider_error', retryable: true });
    expect(server.requests).toHaveLength(1); // SDK retries are off: core decides
  });

  it('maps 401 authentication_error to unauthorized, not retryable, without the key in the message', async () => {
    server.reply(json(401, { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${KEY}` } }));
    const err = await provider.chat(toolRoundTrip).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'DossierError', code: 'unauthorized', retryable: false });
    expect(String((err as Error).message)).not.toContain(KEY);
    expect(String((err as Error).message)).toMatch(/Anthropic/);
  });

  it('maps 429 to a retryable rate_limited error and 400 to a provider_error that is not retryable', async () => {
    server.reply(
      json(429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }),
      json(400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens too large' } }),
    );
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'rate_limited', retryable: true });
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'provider_error', retryable: false, message: /max_tokens too large/ });
  });

  it("carries the provider's retry-after (seconds, milliseconds or an HTTP date) on retryable errors, for core to honour (issue 12)", async () => {
    const later = new Date(Date.now() + 30_000).toUTCString();
    server.reply(
      json(429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, { 'retry-after': '7' }),
      json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { 'retry-after-ms': '1500', 'retry-after': '9' }),
      json(503, { type: 'error', error: { type: 'api_error', message: 'busy' } }, { 'retry-after': later }),
      json(500, { type: 'error', error: { type: 'api_error', message: 'oops' } }),
    );
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 7000 });
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'provider_error', retryable: true, retryAfterMs: 1500 });
    const dated = (await provider.chat(toolRoundTrip).catch((e: unknown) => e)) as { retryAfterMs: number };
    expect(dated.retryAfterMs).toBeGreaterThan(25_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(((await provider.chat(toolRoundTrip).catch((e: unknown) => e)) as { retryAfterMs?: number }).retryAfterMs).toBeUndefined();
  });

  it('throws when an error event arrives mid-stream, after some deltas were delivered', async () => {
    server.reply(
      sse([
        ...streamStart(),
        ...textBlock(0, ['partial']).slice(0, 2),
        { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      ]),
    );
    const seen: ChatStreamEvent[] = [];
    const run = async () => {
      for await (const e of provider.stream(toolRoundTrip)) seen.push(e);
    };
    await expect(run()).rejects.toMatchObject({ code: 'provider_error', retryable: true, message: /overloaded_error/ });
    expect(seen).toEqual([{ type: 'text', delta: 'partial' }]);
  });

  it('throws a retryable provider_error when the connection drops mid-stream or the stream ends without message_stop', async () => {
    server.reply(sse([...streamStart(), ...textBlock(0, ['par'])], 'drop'), sse([...streamStart(), ...textBlock(0, ['par'])], 'end'));
    await expect(collect(provider.stream(toolRoundTrip))).rejects.toMatchObject({ code: 'provider_error', retryable: true });
    await expect(collect(provider.stream(toolRoundTrip))).rejects.toMatchObject({ code: 'provider_error', retryable: true, message: /ended before/ });
  });

  it('cancels a stream when its signal aborts, rejecting with the signal reason and closing the connection', async () => {
    server.reply(sse([...streamStart(), ...textBlock(0, ['first']).slice(0, 2)], 'hang'));
    const controller = new AbortController();
    const closed = server.clientClosed();
    const run = async () => {
      for await (const e of provider.stream({ ...toolRoundTrip, signal: controller.signal })) if (e.type === 'text') controller.abort();
    };
    await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
    await closed;
  });

  it('cancels a whole call when its signal aborts', async () => {
    server.reply(() => {}); // never answers
    const controller = new AbortController();
    const closed = server.clientClosed();
    const call = provider.chat({ ...toolRoundTrip, signal: controller.signal });
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort(new Error('stop now'));
    await expect(call).rejects.toThrow('stop now');
    await closed;
  });

  it('reports an unreachable server as a retryable provider_error naming its address', async () => {
    const down = createModelProviderFactory().create('anthropic', { apiKey: KEY, baseUrl: 'http://127.0.0.1:1' });
    await expect(down.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'provider_error', retryable: true, message: /127\.0\.0\.1:1/ });
  });
});
