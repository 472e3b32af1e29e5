import type { Logger } from '../context.ts';
import { DossierError, type DossierErrorCode, isDossierError } from '../domain/errors.ts';
import type { RunUsage } from '../domain/types.ts';
import type { ChatMessage, ChatRequest, ModelProvider, TokenUsage, ToolCall, ToolDefinition } from '../ports/model-provider.ts';
import { newId } from '../util/ids.ts';
import { abortable, type Deadline, deadline, raceAbort } from './abort.ts';
import { ContextWindow, defaultForms, type ToolOutput } from './context-window.ts';
import { DEFAULT_RETRY, type RetryPolicy, retryDelay, sleep } from './retry.ts';

/**
 * The one tool loop of Dossier (DESIGN: Research and agents): a model with tools, up to an iteration cap and a
 * wall-clock cap, streamed as events. Research uses it today; hosted agents and agent preview reuse it with
 * their own tools and prompt. It knows nothing about collections or sessions. What a run costs is its policy too:
 * a budget of input tokens (older tool results condensed as it nears, the last turn always fitting), prompt
 * caching, and retries of model calls that failed transiently, within the run's time limit.
 */

/** A tool the loop may offer the model. */
export interface AgentTool {
  readonly definition: ToolDefinition;
  /** How a call shows in a `tool_call` event (`tool` absent means the default tool, as the research stream wants). */
  describe(args: Record<string, unknown>): { query: string; tool?: string };
  /**
   * Run a call and return what the model reads: text, or text with shorter forms for when the context budget
   * nears (plain text gets generic ones). Return an error text for mistakes the model can fix (bad arguments,
   * unknown ids); throw to end the run.
   */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string | ToolOutput>;
}

export interface AgentLoopOptions {
  provider: ModelProvider;
  /** Provider-native model id. */
  model: string;
  /** The system prompt and the request (and any earlier conversation). */
  messages: ChatMessage[];
  tools: readonly AgentTool[];
  /** Model turns at most (≥ 1). The last turn may call no tools, so the run ends with an answer or an error. */
  maxIterations: number;
  /** Wall-clock limit of the whole run, retries included; when it fires the run ends with an `error` event (code `timeout`). */
  timeoutMs: number;
  /**
   * Input tokens all model calls of the run may send together (estimated; see ContextWindow). Each call gets an
   * equal share of what is left; older tool results are condensed to fit it, and when even that cannot fit, the
   * run answers early. Absent: unbounded.
   */
  inputTokenBudget?: number;
  /** Retries of model calls that fail transiently (default DEFAULT_RETRY). */
  retry?: RetryPolicy;
  /** Ask the provider to cache the stable prefix and the conversation (default true). */
  promptCache?: boolean;
  /** The caller's cancellation (client disconnect): aborts the provider call and ends the run with no further event. */
  signal?: AbortSignal;
  maxTokens?: number;
  /** Added as a user message on the last turn, telling the model to answer now. */
  finalTurnNote?: string;
  log?: Logger;
}

export type AgentEvent =
  /** A model call starts (progress: the caller may show that the run is waiting on the model); attempt 2+ after a retry. */
  | { type: 'model_call'; iteration: number; maxIterations: number; final: boolean; attempt: number }
  /** Not fatal: the run goes on (e.g. it answers early because its token budget is spent). */
  | { type: 'warning'; message: string }
  /** A model call failed transiently and is retried after `delayMs`. */
  | { type: 'retry'; iteration: number; attempt: number; delayMs: number; message: string }
  | { type: 'tool_call'; query: string; tool?: string; call: ToolCall }
  | { type: 'tool_result'; call: ToolCall; content: string }
  | { type: 'chunk'; content: string }
  | { type: 'done'; answer: string; iterations: number; usage: RunUsage }
  | { type: 'error'; message: string; code: DossierErrorCode; usage: RunUsage };

interface LoopState {
  window: ContextWindow;
  answer: string;
  usage: RunUsage;
  /** Estimated input tokens of the calls made so far (a retried call counts once): what the budget is spent on. */
  spent: number;
  cacheKey: string;
}

/** Run the loop: `chunk` events stream the answer, and the run ends with exactly one `done` or `error` (or nothing when cancelled). */
export async function* runAgentLoop(opts: AgentLoopOptions): AsyncGenerator<AgentEvent, void, undefined> {
  const limit = deadline(opts.signal, opts.timeoutMs);
  const usage: RunUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, modelCalls: 0, retries: 0 };
  const window = new ContextWindow(
    opts.messages,
    opts.tools.map((t) => t.definition),
  );
  const state: LoopState = { window, answer: '', usage, spent: 0, cacheKey: newId() };
  const max = Math.max(1, opts.maxIterations);
  try {
    for (let i = 1; i <= max; i++) {
      const final = planTurn(opts, state, i, max);
      if (final && i < max)
        yield { type: 'warning', message: `The run's input token budget allows no more tool calls: answering after ${i - 1} of ${max - 1} tool turns` };
      const turn = yield* modelTurnWithRetries(opts, state, final, limit, { iteration: i, maxIterations: max });
      if (final || turn.toolCalls.length === 0) {
        yield finish(state, i);
        return;
      }
      state.window.add({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls }, i);
      for (const call of turn.toolCalls) yield* toolStep(opts, state, call, i, limit.signal);
    }
  } catch (err) {
    if (opts.signal?.aborted) return;
    yield failure(err, limit, opts, state.usage);
  } finally {
    limit.clear();
  }
}

const finalNote = (opts: AgentLoopOptions): ChatMessage[] => (opts.finalTurnNote ? [{ role: 'user', content: opts.finalTurnNote }] : []);

/** Share of the budget the loop plans to spend by its own count: providers' tokenizers differ from cl100k by a few percent. */
const BUDGET_MARGIN = 0.95;

/**
 * Fit the conversation into this turn's share of the budget, and say whether the turn must be the last: the cap
 * is reached, or the conversation cannot shrink into its share (then the last turn gets all that is left, so it
 * always fits, the older results condensed as far as they go).
 */
function planTurn(opts: AgentLoopOptions, state: LoopState, iteration: number, max: number): boolean {
  if (opts.inputTokenBudget === undefined) return iteration >= max;
  const remaining = opts.inputTokenBudget * BUDGET_MARGIN - state.spent;
  if (iteration < max && state.window.fit(remaining / (max - iteration + 1))) return false;
  if (!state.window.fit(remaining, finalNote(opts))) {
    opts.log?.warn('agent run over its input token budget', {
      budget: opts.inputTokenBudget,
      spent: state.spent,
      lastTurn: state.window.tokens(finalNote(opts)),
    });
  }
  return true;
}

interface Turn {
  text: string;
  toolCalls: ToolCall[];
}

/** One model turn, retried while it fails transiently, nothing of it was streamed, and the time limit allows. */
async function* modelTurnWithRetries(
  opts: AgentLoopOptions,
  state: LoopState,
  final: boolean,
  limit: Deadline,
  turn: { iteration: number; maxIterations: number },
): AsyncGenerator<AgentEvent, Turn, undefined> {
  const { iteration } = turn;
  const request = buildRequest(opts, state, final, limit.signal);
  state.spent += state.window.tokens(final ? finalNote(opts) : []);
  for (let attempt = 1; ; attempt++) {
    const streamedBefore = state.answer.length;
    yield { type: 'model_call', ...turn, final, attempt };
    try {
      state.usage.modelCalls++;
      return yield* modelTurn(opts.provider, request, state, limit.signal);
    } catch (err) {
      if (limit.signal.aborted) throw err;
      // Answer text already went out: a retry would send it twice, so the run fails and says so.
      if (state.answer.length > streamedBefore) throw failedAfterStreaming(err);
      const delayMs = retryDelay(err, attempt, opts.retry ?? DEFAULT_RETRY, limit.remainingMs());
      if (delayMs === null) throw attempt > 1 ? gaveUp(err, attempt - 1) : err;
      const message = err instanceof Error ? err.message : String(err);
      opts.log?.warn('model call failed; retrying', { model: opts.model, iteration, attempt, delayMs, error: message });
      state.usage.retries++;
      yield { type: 'retry', iteration, attempt, delayMs, message };
      await sleep(delayMs, limit.signal);
    }
  }
}

/**
 * The request of a turn. The last turn keeps the tools but may not call them (`toolChoice: none`), so the
 * prefix the provider cached on earlier turns (tools, system prompt, conversation) still matches.
 */
function buildRequest(opts: AgentLoopOptions, state: LoopState, final: boolean, signal: AbortSignal): ChatRequest {
  const messages = [...state.window.messages(), ...(final ? finalNote(opts) : [])];
  const request: ChatRequest = { model: opts.model, messages, maxTokens: opts.maxTokens, signal };
  if (opts.tools.length > 0) request.tools = opts.tools.map((t) => t.definition);
  if (final && request.tools) request.toolChoice = 'none';
  if (opts.promptCache !== false) request.promptCache = { key: state.cacheKey };
  return request;
}

/** One streamed model call; text deltas become `chunk` events as they arrive. */
async function* modelTurn(provider: ModelProvider, request: ChatRequest, state: LoopState, signal: AbortSignal): AsyncGenerator<AgentEvent, Turn, undefined> {
  let text = '';
  const toolCalls: ToolCall[] = [];
  for await (const ev of abortable(provider.stream(request), signal)) {
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

/** Announce a tool call, run it, and give the model its result (with its shorter forms, for the budget). */
async function* toolStep(
  opts: AgentLoopOptions,
  state: LoopState,
  call: ToolCall,
  turn: number,
  signal: AbortSignal,
): AsyncGenerator<AgentEvent, void, undefined> {
  const tool = opts.tools.find((t) => t.definition.name === call.name);
  const shown = tool ? tool.describe(call.arguments) : { query: JSON.stringify(call.arguments ?? {}), tool: call.name };
  yield { type: 'tool_call', ...shown, call };
  const available = opts.tools.map((t) => t.definition.name).join(', ');
  const output = tool
    ? await raceAbort(tool.run(call.arguments ?? {}, signal), signal)
    : `Error: there is no tool named '${call.name}'. Available tools: ${available || 'none'}.`;
  signal.throwIfAborted();
  const forms = typeof output === 'string' ? defaultForms(call.name, output) : [output.content, ...(output.condensed ?? [])];
  const content = forms[0] ?? '';
  state.window.add({ role: 'tool', toolCallId: call.id, name: call.name, content }, turn, forms);
  yield { type: 'tool_result', call, content };
}

function finish(state: LoopState, iterations: number): AgentEvent {
  if (state.answer.trim() === '') return { type: 'error', code: 'provider_error', message: 'The model ended without writing an answer', usage: state.usage };
  return { type: 'done', answer: state.answer, iterations, usage: state.usage };
}

/** The last failure of a call that was retried, saying how often. */
function gaveUp(err: unknown, retries: number): unknown {
  if (!isDossierError(err)) return err;
  return new DossierError(err.code, `${err.message} (gave up after ${retries} ${retries === 1 ? 'retry' : 'retries'})`, { cause: err });
}

/** A failure after answer text was streamed: reported as such, because retrying would repeat that text. */
function failedAfterStreaming(err: unknown): unknown {
  if (!isDossierError(err)) return err;
  const message = `${err.message}; the model failed after part of the answer was streamed, so the run was not retried (the partial answer is not saved)`;
  return new DossierError(err.code, message, { cause: err });
}

/** The error event of a failed run; messages of non-Dossier errors stay in the log. */
function failure(err: unknown, limit: Deadline, opts: AgentLoopOptions, usage: RunUsage): AgentEvent {
  if (limit.timedOut()) {
    return { type: 'error', code: 'timeout', message: `The run exceeded its time limit of ${formatMs(opts.timeoutMs)}`, usage };
  }
  if (isDossierError(err)) return { type: 'error', code: err.code, message: err.message, usage };
  opts.log?.error('tool loop failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  return { type: 'error', code: 'internal', message: 'The run failed with an internal error', usage };
}

function addUsage(total: RunUsage, u: TokenUsage): void {
  total.inputTokens += u.inputTokens;
  total.outputTokens += u.outputTokens;
  total.cacheReadTokens += u.cacheReadTokens ?? 0;
  total.cacheWriteTokens += u.cacheWriteTokens ?? 0;
}

const formatMs = (ms: number): string => (ms >= 60_000 ? `${Math.round(ms / 6000) / 10} min` : ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);
