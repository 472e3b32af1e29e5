import type { Logger } from '../context.ts';
import { type DossierErrorCode, isDossierError } from '../domain/errors.ts';
import type { ChatMessage, ModelProvider, TokenUsage, ToolCall, ToolDefinition } from '../ports/model-provider.ts';
import { abortable, type Deadline, deadline, raceAbort } from './abort.ts';

/**
 * The one agent loop of Dossier (DESIGN: Research and agents): a model with tools, up to an iteration cap and a
 * wall-clock cap, streamed as events. Research uses it today; hosted agents and agent preview reuse it with
 * their own tools and prompt. It knows nothing about collections or sessions.
 */

/** A tool the loop may offer the model. */
export interface AgentTool {
  readonly definition: ToolDefinition;
  /** How a call shows in a `tool_call` event (`tool` absent means the default tool, as the research stream wants). */
  describe(args: Record<string, unknown>): { query: string; tool?: string };
  /**
   * Run a call and return the text the model reads. Return an error text for mistakes the model can fix (bad
   * arguments, unknown ids); throw to end the run.
   */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

export interface AgentLoopOptions {
  provider: ModelProvider;
  /** Provider-native model id. */
  model: string;
  /** The system prompt and the request (and any earlier conversation). */
  messages: ChatMessage[];
  tools: readonly AgentTool[];
  /** Model turns at most (≥ 1). The last turn is offered no tools, so the run ends with an answer or an error. */
  maxIterations: number;
  /** Wall-clock limit of the whole run; when it fires the run ends with an `error` event (code `timeout`). */
  timeoutMs: number;
  /** The caller's cancellation (client disconnect): aborts the provider call and ends the run with no further event. */
  signal?: AbortSignal;
  maxTokens?: number;
  /** Added as a user message on the last turn, telling the model to answer now. */
  finalTurnNote?: string;
  log?: Logger;
}

export type AgentEvent =
  | { type: 'tool_call'; query: string; tool?: string; call: ToolCall }
  | { type: 'tool_result'; call: ToolCall; content: string }
  | { type: 'chunk'; content: string }
  | { type: 'done'; answer: string; iterations: number; usage: TokenUsage }
  | { type: 'error'; message: string; code: DossierErrorCode };

interface LoopState {
  messages: ChatMessage[];
  answer: string;
  usage: TokenUsage;
}

/** Run the loop: `chunk` events stream the answer, and the run ends with exactly one `done` or `error` (or nothing when cancelled). */
export async function* runAgentLoop(opts: AgentLoopOptions): AsyncGenerator<AgentEvent, void, undefined> {
  const limit = deadline(opts.signal, opts.timeoutMs);
  const state: LoopState = { messages: [...opts.messages], answer: '', usage: { inputTokens: 0, outputTokens: 0 } };
  try {
    for (let i = 1; i <= Math.max(1, opts.maxIterations); i++) {
      const final = i >= opts.maxIterations;
      const turn = yield* modelTurn(opts, state, final, limit.signal);
      if (final || turn.toolCalls.length === 0) {
        yield finish(state, i);
        return;
      }
      state.messages.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls });
      for (const call of turn.toolCalls) yield* toolStep(opts, state, call, limit.signal);
    }
  } catch (err) {
    if (opts.signal?.aborted) return;
    yield failure(err, limit, opts);
  } finally {
    limit.clear();
  }
}

/** One streamed model call; text deltas become `chunk` events as they arrive. */
async function* modelTurn(opts: AgentLoopOptions, state: LoopState, final: boolean, signal: AbortSignal) {
  const messages: ChatMessage[] = final && opts.finalTurnNote ? [...state.messages, { role: 'user', content: opts.finalTurnNote }] : [...state.messages];
  const tools = final || opts.tools.length === 0 ? undefined : opts.tools.map((t) => t.definition);
  const stream = opts.provider.stream({ model: opts.model, messages, tools, maxTokens: opts.maxTokens, signal });
  let text = '';
  const toolCalls: ToolCall[] = [];
  for await (const ev of abortable(stream, signal)) {
    if (ev.type === 'text' && ev.delta) {
      // Text of an earlier turn (a preamble before tool calls) stays in the answer; keep paragraphs apart.
      if (text === '' && state.answer !== '' && !state.answer.endsWith('\n\n')) yield* emit(state, '\n\n');
      text += ev.delta;
      yield* emit(state, ev.delta);
    } else if (ev.type === 'tool_call') toolCalls.push(ev.call);
    else if (ev.type === 'done') addUsage(state.usage, ev.usage);
  }
  signal.throwIfAborted();
  return { text, toolCalls };
}

async function* emit(state: LoopState, content: string): AsyncGenerator<AgentEvent, void, undefined> {
  state.answer += content;
  yield { type: 'chunk', content };
}

/** Announce a tool call, run it, and give the model its result. */
async function* toolStep(opts: AgentLoopOptions, state: LoopState, call: ToolCall, signal: AbortSignal): AsyncGenerator<AgentEvent, void, undefined> {
  const tool = opts.tools.find((t) => t.definition.name === call.name);
  const shown = tool ? tool.describe(call.arguments) : { query: JSON.stringify(call.arguments ?? {}), tool: call.name };
  yield { type: 'tool_call', ...shown, call };
  const available = opts.tools.map((t) => t.definition.name).join(', ');
  const content = tool
    ? await raceAbort(tool.run(call.arguments ?? {}, signal), signal)
    : `Error: there is no tool named '${call.name}'. Available tools: ${available || 'none'}.`;
  signal.throwIfAborted();
  state.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
  yield { type: 'tool_result', call, content };
}

function finish(state: LoopState, iterations: number): AgentEvent {
  if (state.answer.trim() === '') return { type: 'error', code: 'provider_error', message: 'The model ended without writing an answer' };
  return { type: 'done', answer: state.answer, iterations, usage: state.usage };
}

/** The error event of a failed run; messages of non-Dossier errors stay in the log. */
function failure(err: unknown, limit: Deadline, opts: AgentLoopOptions): AgentEvent {
  if (limit.timedOut()) {
    return { type: 'error', code: 'timeout', message: `The run exceeded its time limit of ${formatMs(opts.timeoutMs)}` };
  }
  if (isDossierError(err)) return { type: 'error', code: err.code, message: err.message };
  opts.log?.error('agent loop failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  return { type: 'error', code: 'internal', message: 'The run failed with an internal error' };
}

function addUsage(total: TokenUsage, u: TokenUsage): void {
  total.inputTokens += u.inputTokens;
  total.outputTokens += u.outputTokens;
}

const formatMs = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);
