import type { ChatRequest, ChatStreamEvent, ModelProvider } from '@dossier/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelProviderFactory } from '../../src/providers/factory.ts';
import { collect, json, ndjson, startWireServer, type WireServer } from './wire-server.ts';

let server: WireServer;
let provider: ModelProvider;

beforeAll(async () => {
  server = await startWireServer();
  provider = createModelProviderFactory().create('ollama', { baseUrl: server.url });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const searchTool = { name: 'search', description: 'Hybrid search', parameters: { type: 'object', properties: { q: { type: 'string' } } } };

const toolRoundTrip: ChatRequest = {
  model: 'llama3.1',
  maxTokens: 256,
  temperature: 0.2,
  tools: [searchTool],
  messages: [
    { role: 'system', content: 'Answer from the documents.' },
    { role: 'user', content: 'What changed?' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'search', arguments: { q: 'revenue' } }] },
    { role: 'tool', toolCallId: 'call_1', name: 'search', content: 'Revenue grew.' },
  ],
};

const at = '2025-01-01T00:00:00Z';
const part = (message: unknown) => ({ model: 'llama3.1', created_at: at, message: { role: 'assistant', content: '', ...(message as object) }, done: false });
const final = (done_reason = 'stop') => ({
  model: 'llama3.1',
  created_at: at,
  message: { role: 'assistant', content: '' },
  done: true,
  done_reason,
  total_duration: 1,
  load_duration: 1,
  prompt_eval_count: 61,
  prompt_eval_duration: 1,
  eval_count: 17,
  eval_duration: 1,
});

describe('Ollama provider at the wire', () => {
  it('sends tools, tool calls and tool results (by tool_name) to /api/chat with options', async () => {
    server.reply(json(200, { ...final(), message: { role: 'assistant', content: 'Revenue grew.' } }));
    await provider.chat(toolRoundTrip);
    const [req] = server.requests;
    expect(req?.path).toBe('/api/chat');
    expect(req?.body).toEqual({
      model: 'llama3.1',
      stream: false,
      options: { num_predict: 256, temperature: 0.2 },
      tools: [{ type: 'function', function: { name: 'search', description: 'Hybrid search', parameters: searchTool.parameters } }],
      messages: [
        { role: 'system', content: 'Answer from the documents.' },
        { role: 'user', content: 'What changed?' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'search', arguments: { q: 'revenue' } } }] },
        { role: 'tool', content: 'Revenue grew.', tool_name: 'search' },
      ],
    });
  });

  it('parses text, tool calls (with generated ids), stop reason and token counts of a whole answer', async () => {
    server.reply(
      json(200, {
        ...final(),
        message: { role: 'assistant', content: 'Searching.', tool_calls: [{ function: { name: 'search', arguments: { q: 'costs' } } }] },
      }),
    );
    const result = await provider.chat(toolRoundTrip);
    expect(result).toMatchObject({
      text: 'Searching.',
      toolCalls: [{ name: 'search', arguments: { q: 'costs' } }],
      stopReason: 'tool_calls',
      usage: { inputTokens: 61, outputTokens: 17 },
    });
    expect(result.toolCalls[0]?.id).toMatch(/^call_/);
  });

  it('streams NDJSON content deltas and tool calls in order, then done with prompt_eval_count/eval_count', async () => {
    server.reply(
      ndjson([
        part({ content: 'Let ' }),
        part({ content: 'me look.' }),
        part({ tool_calls: [{ function: { name: 'search', arguments: { q: 'revenue' } } }, { function: { name: 'search', arguments: { q: 'costs' } } }] }),
        final(),
      ]),
    );
    const events = await collect(provider.stream(toolRoundTrip));
    expect(events.map((e) => e.type)).toEqual(['text', 'text', 'tool_call', 'tool_call', 'done']);
    expect(events).toMatchObject<ChatStreamEvent[]>([
      { type: 'text', delta: 'Let ' },
      { type: 'text', delta: 'me look.' },
      { type: 'tool_call', call: { id: expect.any(String), name: 'search', arguments: { q: 'revenue' } } },
      { type: 'tool_call', call: { id: expect.any(String), name: 'search', arguments: { q: 'costs' } } },
      { type: 'done', stopReason: 'tool_calls', usage: { inputTokens: 61, outputTokens: 17 } },
    ]);
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it('maps done_reason length to max_tokens', async () => {
    server.reply(ndjson([part({ content: 'Trunc' }), final('length')]));
    expect((await collect(provider.stream(toolRoundTrip))).at(-1)).toMatchObject({ type: 'done', stopReason: 'max_tokens' });
  });

  it('maps a missing model (404) to a provider_error that is not retryable, and 500 to a retryable one', async () => {
    server.reply(json(404, { error: "model 'llama3.1' not found" }), json(500, { error: 'out of memory' }));
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'provider_error', retryable: false, message: /not found/ });
    await expect(provider.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'provider_error', retryable: true, message: /out of memory/ });
  });

  it('throws when an error line arrives mid-stream, after some deltas', async () => {
    server.reply(ndjson([part({ content: 'partial' }), { error: 'model runner crashed' }]));
    const seen: ChatStreamEvent[] = [];
    const run = async () => {
      for await (const e of provider.stream(toolRoundTrip)) seen.push(e);
    };
    await expect(run()).rejects.toMatchObject({ code: 'provider_error', retryable: true, message: /model runner crashed/ });
    expect(seen).toEqual([{ type: 'text', delta: 'partial' }]);
  });

  it('throws a retryable provider_error when the connection drops or the stream ends before done', async () => {
    server.reply(ndjson([part({ content: 'par' })], 'drop'), ndjson([part({ content: 'par' })], 'end'));
    await expect(collect(provider.stream(toolRoundTrip))).rejects.toMatchObject({ code: 'provider_error', retryable: true });
    await expect(collect(provider.stream(toolRoundTrip))).rejects.toMatchObject({ code: 'provider_error', retryable: true });
  });

  it('cancels a stream when its signal aborts, rejecting with the signal reason and closing the connection', async () => {
    server.reply(ndjson([part({ content: 'first' })], 'hang'));
    const controller = new AbortController();
    const closed = server.clientClosed();
    const run = async () => {
      for await (const e of provider.stream({ ...toolRoundTrip, signal: controller.signal })) if (e.type === 'text') controller.abort();
    };
    await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
    await closed;
  });

  it('cancels a whole call when its signal aborts (the client itself takes no signal)', async () => {
    server.reply(() => {});
    const controller = new AbortController();
    const closed = server.clientClosed();
    const call = provider.chat({ ...toolRoundTrip, signal: controller.signal });
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await closed;
  });

  it('reports a server that is not running as a retryable provider_error naming its address', async () => {
    const down = createModelProviderFactory().create('ollama', { baseUrl: 'http://127.0.0.1:1' });
    await expect(down.chat(toolRoundTrip)).rejects.toMatchObject({ code: 'provider_error', retryable: true, message: /127\.0\.0\.1:1/ });
  });
});
