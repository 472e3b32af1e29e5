import type { ChatRequest, ChatStreamEvent, ModelProvider } from '@dossier/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelProviderFactory } from '../../src/providers/factory.ts';
import { collect, json, sentKey, sse, startWireServer, type WireServer } from './wire-server.ts';

const KEY = 'sk-proj-test-0123456789abcdefSECRET';
let server: WireServer;
let provider: ModelProvider;

beforeAll(async () => {
  server = await startWireServer();
  provider = createModelProviderFactory().create('openai', { apiKey: KEY, baseUrl: `${server.url}/v1` });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const searchTool = { name: 'search', description: 'Hybrid search', parameters: { type: 'object', properties: { q: { type: 'string' } } } };

const toolRoundTrip: ChatRequest = {
  model: 'gpt-4.1-mini',
  maxTokens: 300,
  tools: [searchTool],
  messages: [
    { role: 'system', content: 'Answer from the documents.' },
    { role: 'user', content: 'What changed?' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'search', arguments: { q: 'revenue' } }] },
    { role: 'tool', toolCallId: 'call_1', name: 'search', content: 'Revenue grew.' },
  ],
};

const completion = (message: unknown, finish_reason: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4.1-mini',
  choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...(message as object) }, finish_reason, logprobs: null }],
  usage: { prompt_tokens: 90, completion_tokens: 12, total_tokens: 102 },
});

const chunk = (delta: unknown, finish_reason: string | null = null) => ({
  data: { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason, logprobs: null }] },
});
const usageChunk = {
  data: {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4.1-mini',
    choices: [],
    usage: { prompt_tokens: 70, completion_tokens: 33, total_tokens: 103 },
  },
};
const DONE = { data: '[DONE]' };

describe('OpenAI provider at the wire', () => {
  it('sends function tools, assistant tool_calls and tool messages in Chat Completions shape, with a Bearer key', async () => {
    server.reply(json(200, completion({ content: 'Revenue grew.' }, 'stop')));
    await provider.chat(toolRoundTrip);
    const [req] = server.requests;
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sentKey(req)).toBe(KEY);
    expect(req?.body).toEqual({
      model: 'gpt-4.1-mini',
      max_completion_tokens: 300,
      tools: [{ type: 'function', function: { name: 'search', description: 'Hybrid search', parameters: searchTool.parameters } }],
      messages: [
        { role: 'system', content: 'Answer from the documents.' },
        { role: 'user', content: 'What changed?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"revenue"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'Revenue grew.' },
      ],
    });
  });

  it('sends images as data URLs', async () => {
    server.reply(json(200, completion({ content: 'A chart.' }, 'stop')));
    await provider.chat({
      model: 'gpt-4.1',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Caption' },
            { type: 'image', mimeType: 'image/png', base64: 'iVBOR' },
          ],
        },
      ],
    });
    expect(server.requests[0]?.body.messages[0].content).toEqual([
      { type: 'text', text: 'Caption' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
    ]);
  });

  it('parses text, tool calls with JSON arguments, stop reason and usage of a whole answer', async () => {
    server.reply(
      json(
        200,
        completion({ content: null, tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'search', arguments: '{"q":"costs"}' } }] }, 'tool_calls'),
      ),
    );
    expect(await provider.chat(toolRoundTrip)).toEqual({
      text: '',
      toolCalls: [{ id: 'call_7', name: 'search', arguments: { q: 'costs' } }],
      stopReason: 'tool_calls',
      usage: { inputTokens: 90, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
  });

  it('streams text deltas, then tool calls assembled by index from argument fragments, then done with the usage chunk', async () => {
    server.reply(
      sse([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Searching ' }),
        chunk({ content: 'now.' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'search', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'search', arguments: '{"q":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":"rev' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'enue"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '"costs"}' } }] }),
        chunk({}, 'tool_calls'),
        usageChunk,
        DONE,
      ]),
    );
    const events = await collect(provider.stream(toolRoundTrip));
    expect(events).toEqual<ChatStreamEvent[]>([
      { type: 'text', delta: 'Searching ' },
      { type: 'text', delta: 'now.' },
      { type: 'tool_call', call: { id: 'call_a', name: 'search', arguments: { q: 'revenue' } } },
      { type: 'tool_call', call: { id: 'call_b', name: 'search', arguments: { q: 'costs' } } },
      { type: 'done', stopReason: 'tool_calls', usage: { inputTokens: 70, outputTokens: 33, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    ]);
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('maps a length finish to max_tokens', async () => {
    server.reply(sse([chunk({ content: 'Trunc' }), chunk({}, 'length'), usageChunk, DONE]));
    expect((await collect(provider.stream(toolRoundTrip))).at(-1)).toMatchObject({ type: 'done', stopReason: 'max_tokens' });
  });

  it('maps 401 to unauthorized without the key, 429 to retryable rate_limited, 500 to retryable provider_error', async () => {
    server.reply(
      json(401, { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } }),
      json(429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }),
      json(500, { error: { message: 'The server had an error', type: 'server_error' } }),
      json(400, { error: { message: 'Invalid schema for function', type: 'invalid_request_error' } }),
    );
    const unauthorized = (await provider.chat(toolRoundTrip).catch((e: unknown) => e)) as Error;
    expect(unauthorized).toMatchObject({ name: 'DossierError', code: 'unauthorized', retryable: false });
    expect(unauthorized.message).not.toContain(KEY);
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'rate_limited', retryable: true });
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'provider_error', retryable: true });
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'provider_error', retryable: false, message: /Invalid schema/ });
    expect(server.requests).toHaveLength(4); // SDK retries are off
  });

  it('throws when the stream carries an error after some deltas', async () => {
    server.reply(sse([chunk({ content: 'partial' }), { data: { error: { message: 'The server had an error', type: 'server_error' } } }]));
    const seen: ChatStreamEvent[] = [];
    const run = async () => {
      for await (const e of provider.stream(toolRoundTrip)) seen.push(e);
    };
    await expect(run()).rejects.toMatchObject({ code: 'provider_error', retryable: true });
    expect(seen).toEqual([{ type: 'text', delta: 'partial' }]);
  });

  it('throws a retryable provider_error when the connection drops or the stream ends before a finish_reason', async () => {
    server.reply(sse([chunk({ content: 'par' })], 'drop'), sse([chunk({ content: 'par' })], 'end'));
    await expect(collect(provider.stream(toolRoundTrip))).rejects.toMatchObject({ code: 'provider_error', retryable: true });
    await expect(collect(provider.stream(toolRoundTrip))).rejects.toMatchObject({ code: 'provider_error', retryable: true, message: /ended before/ });
  });

  it('throws a retryable provider_error for tool arguments that are not valid JSON', async () => {
    server.reply(
      sse([
        chunk({ tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { name: 'search', arguments: '{"q": ' } }] }),
        chunk({}, 'tool_calls'),
        DONE,
      ]),
    );
    await expect(collect(provider.stream(toolRoundTrip))).rejects.toMatchObject({ code: 'provider_error', retryable: true, message: /invalid JSON/ });
  });

  it('cancels a stream when its signal aborts, rejecting with the signal reason and closing the connection', async () => {
    server.reply(sse([chunk({ content: 'first' })], 'hang'));
    const controller = new AbortController();
    const closed = server.clientClosed();
    const run = async () => {
      for await (const e of provider.stream({ ...toolRoundTrip, signal: controller.signal })) if (e.type === 'text') controller.abort();
    };
    await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
    await closed;
  });
});
