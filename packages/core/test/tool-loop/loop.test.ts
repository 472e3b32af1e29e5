import { describe, expect, it } from 'vitest';
import { DossierError } from '../../src/domain/errors.ts';
import { type AgentEvent, type AgentLoopOptions, type AgentTool, runAgentLoop } from '../../src/tool-loop/loop.ts';
import type { RunUsage } from '../../src/domain/types.ts';
import { ContextWindow } from '../../src/tool-loop/context-window.ts';
import type { ChatRequest } from '../../src/ports/model-provider.ts';
import { ScriptedModel, type ScriptedTurn } from '../../src/testing/scripted-model.ts';

/** A tool that echoes its query, or runs the given function. */
function echoTool(run?: AgentTool['run']): AgentTool {
  return {
    definition: { name: 'lookup', description: 'Look something up', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
    describe: (args) => ({ query: String(args.query) }),
    run: run ?? (async (args) => `result for ${String(args.query)}`),
  };
}

function loop(turns: ScriptedTurn[], over: Partial<AgentLoopOptions> = {}) {
  const model = new ScriptedModel(turns);
  const events = runAgentLoop({
    provider: model,
    model: 'scripted',
    messages: [{ role: 'user', content: 'question' }],
    tools: [echoTool()],
    maxIterations: 5,
    timeoutMs: 10_000,
    ...over,
  });
  return { model, events };
}

/** Every event but the `model_call` progress markers (tested on their own). */
async function all(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const ev of events) if (ev.type !== 'model_call') out.push(ev);
  return out;
}

const usage = (over: Partial<RunUsage> = {}): RunUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 1,
  retries: 0,
  ...over,
});

const kinds = (events: AgentEvent[]) => events.map((e) => e.type);

describe('the tool loop', () => {
  it('feeds tool results back to the model and sums token usage over the turns', async () => {
    const { model, events } = loop([
      { toolCalls: [{ name: 'lookup', arguments: { query: 'a' }, id: 'c1' }], usage: { inputTokens: 10, outputTokens: 2 } },
      { text: 'Answer.', usage: { inputTokens: 20, outputTokens: 3 } },
    ]);
    const out = await all(events);
    expect(kinds(out)).toEqual(['tool_call', 'tool_result', 'chunk', 'done']);
    expect(out.at(-1)).toEqual({ type: 'done', answer: 'Answer.', iterations: 2, usage: usage({ inputTokens: 30, outputTokens: 5, modelCalls: 2 }) });
    expect(model.calls[1]?.request.messages.slice(1)).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', arguments: { query: 'a' } }] },
      { role: 'tool', toolCallId: 'c1', name: 'lookup', content: 'result for a' },
    ]);
  });

  it('tells the model about an unknown tool instead of failing the run', async () => {
    const { model, events } = loop([{ toolCalls: [{ name: 'nope', arguments: {} }] }, { text: 'Ok.' }]);
    const out = await all(events);
    expect(out[0]).toMatchObject({ type: 'tool_call', tool: 'nope' });
    expect(out.at(-1)?.type).toBe('done');
    const result = model.calls[1]?.request.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', content: "Error: there is no tool named 'nope'. Available tools: lookup." });
  });

  it('keeps a preamble written before tool calls apart from the answer that follows it', async () => {
    const { events } = loop([{ text: 'Let me check.', toolCalls: [{ name: 'lookup', arguments: { query: 'x' } }] }, { text: 'Found it.' }]);
    const out = await all(events);
    expect(out.at(-1)).toMatchObject({ type: 'done', answer: 'Let me check.\n\nFound it.' });
  });

  it('ends with an error when the model finishes without any answer text', async () => {
    const { events } = loop([{ text: [] }]);
    expect(await all(events)).toEqual([{ type: 'error', code: 'provider_error', message: 'The model ended without writing an answer', usage: usage() }]);
  });

  it('ends with the error of a tool that fails, and hides the message of an unexpected one', async () => {
    const failing = loop([{ toolCalls: [{ name: 'lookup', arguments: { query: 'x' } }] }], {
      tools: [echoTool(async () => Promise.reject(new DossierError('unavailable', 'Index is down')))],
    });
    expect((await all(failing.events)).at(-1)).toMatchObject({ type: 'error', code: 'unavailable', message: 'Index is down' });
    const crashing = loop([{ toolCalls: [{ name: 'lookup', arguments: { query: 'x' } }] }], {
      tools: [echoTool(async () => Promise.reject(new Error('secret stack detail')))],
    });
    expect((await all(crashing.events)).at(-1)).toMatchObject({ type: 'error', code: 'internal', message: 'The run failed with an internal error' });
  });

  it('ends with a timeout error when the wall-clock limit fires, and aborts the model call in flight', async () => {
    const { model, events } = loop([{ text: ['Thinking'], hangAfterDeltas: 1 }], { timeoutMs: 50 });
    const out = await all(events);
    expect(out).toEqual([
      { type: 'chunk', content: 'Thinking' },
      { type: 'error', code: 'timeout', message: 'The run exceeded its time limit of 50 ms', usage: usage() },
    ]);
    expect(model.calls[0]?.outcome).toBe('aborted');
  });

  it('ends with a timeout error when a tool outlives the wall-clock limit', async () => {
    const never = echoTool(() => new Promise<string>(() => {}));
    const { events } = loop([{ toolCalls: [{ name: 'lookup', arguments: { query: 'slow' } }] }], { timeoutMs: 50, tools: [never] });
    expect((await all(events)).at(-1)).toMatchObject({ type: 'error', code: 'timeout' });
  });

  it('ends silently when the caller aborts while a tool runs', async () => {
    const abort = new AbortController();
    let release: () => void = () => {};
    const started = new Promise<void>((r) => (release = r));
    const slow = echoTool(() => {
      release();
      return new Promise<string>(() => {});
    });
    const { model, events } = loop([{ toolCalls: [{ name: 'lookup', arguments: { query: 'x' } }] }], { tools: [slow], signal: abort.signal });
    const collected = all(events);
    await started;
    abort.abort();
    expect(kinds(await collected)).toEqual(['tool_call']);
    expect(model.calls).toHaveLength(1);
  });

  it('lets a test release the model one turn at a time', async () => {
    let go: () => void = () => {};
    const gate = new Promise<void>((r) => (go = r));
    const { model, events } = loop([{ toolCalls: [{ name: 'lookup', arguments: { query: 'q' } }] }, { text: 'Later.', waitFor: gate }]);
    const collected = all(events);
    const second = await model.nextCall(1, 5000);
    expect(second.outcome).toBe('running');
    go();
    expect((await collected).at(-1)).toMatchObject({ type: 'done', answer: 'Later.' });
    expect(second.outcome).toBe('completed');
  });
});

const overloaded = (retryAfterMs?: number) =>
  new DossierError('provider_error', 'Anthropic request failed (HTTP 529: Overloaded)', {
    retryable: true,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
const FAST_RETRY = { maxRetries: 4, baseDelayMs: 5, maxDelayMs: 20 };

describe('the tool loop retries (issue 12)', () => {
  it('retries a call that failed transiently, honouring retry-after, and the run survives two overloads', async () => {
    const { model, events } = loop(
      [{ error: overloaded(30) }, { error: overloaded() }, { toolCalls: [{ name: 'lookup', arguments: { query: 'a' } }] }, { text: 'Answer.' }],
      { retry: FAST_RETRY },
    );
    const started = Date.now();
    const out = await all(events);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    expect(out.filter((e) => e.type === 'retry')).toEqual([
      { type: 'retry', iteration: 1, attempt: 1, delayMs: 30, message: 'Anthropic request failed (HTTP 529: Overloaded)' },
      { type: 'retry', iteration: 1, attempt: 2, delayMs: expect.any(Number), message: 'Anthropic request failed (HTTP 529: Overloaded)' },
    ]);
    expect(out.at(-1)).toMatchObject({ type: 'done', answer: 'Answer.', usage: { modelCalls: 4, retries: 2 } });
    expect(model.calls.map((c) => c.outcome)).toEqual(['failed', 'failed', 'completed', 'completed']);
  });

  it('does not retry an error that is not retryable, nor past the retries allowed', async () => {
    const refused = loop([{ error: new DossierError('unauthorized', 'Anthropic rejected the API key (HTTP 401)') }], { retry: FAST_RETRY });
    expect(await all(refused.events)).toEqual([{ type: 'error', code: 'unauthorized', message: 'Anthropic rejected the API key (HTTP 401)', usage: usage() }]);
    const exhausted = loop([{ error: overloaded() }, { error: overloaded() }], { retry: { ...FAST_RETRY, maxRetries: 1 } });
    const out = await all(exhausted.events);
    expect(out.map((e) => e.type)).toEqual(['retry', 'error']);
    expect(exhausted.model.calls).toHaveLength(2);
  });

  it('does not wait for a retry-after that would outlast the time limit', async () => {
    const { model, events } = loop([{ error: overloaded(60_000) }], { retry: FAST_RETRY, timeoutMs: 2000 });
    expect((await all(events)).at(-1)).toMatchObject({ type: 'error', code: 'provider_error' });
    expect(model.calls).toHaveLength(1);
  });

  it('reports a failure after answer text was streamed instead of retrying and sending the text twice', async () => {
    const { model, events } = loop([{ text: ['Revenue grew'], errorAfterDeltas: 1, error: overloaded(0) }, { text: 'Revenue grew 12 percent.' }], {
      retry: FAST_RETRY,
    });
    const out = await all(events);
    expect(out.map((e) => e.type)).toEqual(['chunk', 'error']);
    expect(out[1]).toMatchObject({ code: 'provider_error', message: expect.stringMatching(/after part of the answer was streamed/) });
    expect(model.calls).toHaveLength(1);
  });
});

/** A tool whose every result is `words` words long, each call's text distinct. */
function bulkyTool(words: number): AgentTool {
  let n = 0;
  return echoTool(async (args) => {
    n++;
    return Array.from({ length: words }, (_, i) => `result${n} word${i} of ${String(args.query)}`).join(' ');
  });
}

describe('the tool loop context budget (issue 12)', () => {
  const keepCalling = (request: ChatRequest, index: number): ScriptedTurn =>
    request.toolChoice === 'none' ? { text: 'Final answer.' } : { toolCalls: [{ name: 'lookup', arguments: { query: `q${index}` } }] };
  const sent = (model: ScriptedModel) => model.calls.map((c) => new ContextWindow(c.request.messages, c.request.tools ?? []).tokens());

  it('keeps the tokens a run sends within its budget by condensing older tool results, and the last turn still fits', async () => {
    const budget = 12_000;
    const model = new ScriptedModel(keepCalling);
    const out = await all(
      runAgentLoop({
        provider: model,
        model: 'm',
        messages: [{ role: 'user', content: 'question' }],
        tools: [bulkyTool(400)],
        maxIterations: 8,
        timeoutMs: 10_000,
        inputTokenBudget: budget,
        finalTurnNote: 'Answer now.',
      }),
    );
    expect(out.at(-1)).toMatchObject({ type: 'done', answer: 'Final answer.' });
    const perCall = sent(model);
    expect(perCall.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(budget);
    const unbounded = new ScriptedModel(keepCalling);
    await all(
      runAgentLoop({
        provider: unbounded,
        model: 'm',
        messages: [{ role: 'user', content: 'question' }],
        tools: [bulkyTool(400)],
        maxIterations: 8,
        timeoutMs: 10_000,
        finalTurnNote: 'Answer now.',
      }),
    );
    expect(sent(unbounded).reduce((a, b) => a + b, 0)).toBeGreaterThan(budget * 1.5);
    // The last turn keeps the tools (a cacheable prefix) but may not call them, and the oldest result is condensed.
    const last = model.calls.at(-1)!.request;
    expect(last.toolChoice).toBe('none');
    expect(last.tools?.map((t) => t.name)).toEqual(['lookup']);
    expect(last.messages.at(-1)).toEqual({ role: 'user', content: 'Answer now.' });
    const results = last.messages.filter((m) => m.role === 'tool');
    expect(results[0]?.content).toMatch(/condensed away|removed to keep the conversation/);
    expect(results.at(-1)?.content.length).toBeGreaterThan(results[0]?.content.length ?? 0); // the newest kept longest
  });

  it('answers early when the budget cannot hold another tool turn', async () => {
    const model = new ScriptedModel(keepCalling);
    const out = await all(
      runAgentLoop({
        provider: model,
        model: 'm',
        messages: [{ role: 'user', content: 'question' }],
        tools: [bulkyTool(1500)],
        maxIterations: 20,
        timeoutMs: 10_000,
        inputTokenBudget: 6000,
      }),
    );
    expect(out.at(-1)).toMatchObject({ type: 'done', answer: 'Final answer.' });
    expect(model.calls.length).toBeLessThan(20);
    expect(out.filter((e) => e.type === 'warning')).toEqual([
      { type: 'warning', message: `The run's input token budget allows no more tool calls: answering after ${model.calls.length - 1} of 19 tool turns` },
    ]);
    expect(sent(model).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(6000);
  });

  it('asks for prompt caching with one key per run, and says when each model call starts', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { query: 'a' } }] }, { text: 'Done.' }]);
    const events: AgentEvent[] = [];
    for await (const ev of runAgentLoop({
      provider: model,
      model: 'm',
      messages: [{ role: 'user', content: 'q' }],
      tools: [echoTool()],
      maxIterations: 3,
      timeoutMs: 5000,
    }))
      events.push(ev);
    const [first, second] = model.calls.map((c) => c.request.promptCache?.key);
    expect(first).toEqual(expect.any(String));
    expect(second).toBe(first);
    expect(events.filter((e) => e.type === 'model_call')).toEqual([
      { type: 'model_call', iteration: 1, maxIterations: 3, final: false, attempt: 1 },
      { type: 'model_call', iteration: 2, maxIterations: 3, final: false, attempt: 1 },
    ]);
  });
});
