import { describe, expect, it } from 'vitest';
import { DossierError } from '../../src/domain/errors.ts';
import { type AgentEvent, type AgentLoopOptions, type AgentTool, runAgentLoop } from '../../src/research/agent-loop.ts';
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

async function all(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

const kinds = (events: AgentEvent[]) => events.map((e) => e.type);

describe('the agent loop', () => {
  it('feeds tool results back to the model and sums token usage over the turns', async () => {
    const { model, events } = loop([
      { toolCalls: [{ name: 'lookup', arguments: { query: 'a' }, id: 'c1' }], usage: { inputTokens: 10, outputTokens: 2 } },
      { text: 'Answer.', usage: { inputTokens: 20, outputTokens: 3 } },
    ]);
    const out = await all(events);
    expect(kinds(out)).toEqual(['tool_call', 'tool_result', 'chunk', 'done']);
    expect(out.at(-1)).toEqual({ type: 'done', answer: 'Answer.', iterations: 2, usage: { inputTokens: 30, outputTokens: 5 } });
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
    expect(await all(events)).toEqual([{ type: 'error', code: 'provider_error', message: 'The model ended without writing an answer' }]);
  });

  it('ends with the error of a tool that fails, and hides the message of an unexpected one', async () => {
    const failing = loop([{ toolCalls: [{ name: 'lookup', arguments: { query: 'x' } }] }], {
      tools: [echoTool(async () => Promise.reject(new DossierError('unavailable', 'Index is down')))],
    });
    expect((await all(failing.events)).at(-1)).toEqual({ type: 'error', code: 'unavailable', message: 'Index is down' });
    const crashing = loop([{ toolCalls: [{ name: 'lookup', arguments: { query: 'x' } }] }], {
      tools: [echoTool(async () => Promise.reject(new Error('secret stack detail')))],
    });
    expect((await all(crashing.events)).at(-1)).toEqual({ type: 'error', code: 'internal', message: 'The run failed with an internal error' });
  });

  it('ends with a timeout error when the wall-clock limit fires, and aborts the model call in flight', async () => {
    const { model, events } = loop([{ text: ['Thinking'], hangAfterDeltas: 1 }], { timeoutMs: 50 });
    const out = await all(events);
    expect(out).toEqual([
      { type: 'chunk', content: 'Thinking' },
      { type: 'error', code: 'timeout', message: 'The run exceeded its time limit of 50 ms' },
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
