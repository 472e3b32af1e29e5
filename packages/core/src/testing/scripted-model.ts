import type { Access } from '../access.ts';
import type { ModelResolver, ModelTier, ResolvedModel } from '../models/types.ts';
import type { ChatRequest, ChatResult, ChatStreamEvent, ModelProvider, ProviderName, StopReason, TokenUsage, ToolCall } from '../ports/model-provider.ts';

/** One answer of the scripted model: text deltas and/or tool calls, or a failure. */
export interface ScriptedTurn {
  /** Text deltas streamed in order (a string is one delta). */
  text?: string | string[];
  /** Tool calls sent after the text; ids default to `call_<call index>_<n>`. */
  toolCalls?: { name: string; arguments?: Record<string, unknown>; id?: string }[];
  usage?: TokenUsage;
  /** Default: `tool_calls` when the turn has tool calls, `end` otherwise. */
  stopReason?: StopReason;
  /** Thrown instead of finishing the turn, after `errorAfterDeltas` text deltas (default 0: before any event). */
  error?: unknown;
  errorAfterDeltas?: number;
  /** Awaited before the turn's first event, so a test can release the model step by step. */
  waitFor?: Promise<unknown> | (() => Promise<unknown>);
  /** After this many deltas, block until the request's signal aborts (then throw its reason, as SDKs do). */
  hangAfterDeltas?: number;
}

/** What happened to one call. */
export type ScriptedOutcome = 'running' | 'completed' | 'failed' | 'aborted';

/** A recorded call: the request as sent (messages copied), its signal, and how it ended. */
export interface ScriptedCall {
  index: number;
  request: Omit<ChatRequest, 'signal'>;
  signal?: AbortSignal;
  outcome: ScriptedOutcome;
}

export type Script = ScriptedTurn[] | ((request: ChatRequest, index: number) => ScriptedTurn);

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The operation was aborted', 'AbortError');

/** Resolve when the signal aborts (never, without a signal). */
const untilAborted = (signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * A call-recording ModelProvider driven by a script of turns: call n plays turn n (or what a script function
 * returns). For tool-loop logic and for library users' own tests; never a product default. A call beyond the
 * script throws, so a runaway loop fails loudly.
 */
export class ScriptedModel implements ModelProvider {
  readonly name: ProviderName;
  readonly calls: ScriptedCall[] = [];
  private readonly script: Script;
  private readonly waiters: { index: number; resolve: (c: ScriptedCall) => void }[] = [];

  constructor(script: Script, opts: { name?: ProviderName } = {}) {
    this.script = script;
    this.name = opts.name ?? 'ollama';
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const result: ChatResult = { text: '', toolCalls: [], stopReason: 'end', usage: { inputTokens: 0, outputTokens: 0 } };
    for await (const ev of this.stream(req)) {
      if (ev.type === 'text') result.text += ev.delta;
      else if (ev.type === 'tool_call') result.toolCalls.push(ev.call);
      else Object.assign(result, { stopReason: ev.stopReason, usage: ev.usage });
    }
    return result;
  }

  async *stream(req: ChatRequest): AsyncGenerator<ChatStreamEvent, void, undefined> {
    const call = this.record(req);
    try {
      yield* this.play(this.turnFor(req, call.index), call, req.signal);
      call.outcome = 'completed';
    } catch (err) {
      call.outcome = req.signal?.aborted ? 'aborted' : 'failed';
      throw err;
    } finally {
      if (call.outcome === 'running') call.outcome = req.signal?.aborted ? 'aborted' : 'completed';
    }
  }

  /** Resolves with call `index` (0-based) once it has started, or rejects after timeoutMs. */
  nextCall(index: number, timeoutMs = 5000): Promise<ScriptedCall> {
    const started = this.calls[index];
    if (started) return Promise.resolve(started);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`ScriptedModel: call ${index} did not start within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        index,
        resolve: (c) => {
          clearTimeout(timer);
          resolve(c);
        },
      });
    });
  }

  private record(req: ChatRequest): ScriptedCall {
    const { signal, ...request } = req;
    const call: ScriptedCall = { index: this.calls.length, request: structuredClone(request), signal, outcome: 'running' };
    this.calls.push(call);
    for (const w of this.waiters.filter((w) => w.index === call.index)) w.resolve(call);
    return call;
  }

  private turnFor(req: ChatRequest, index: number): ScriptedTurn {
    const turn = typeof this.script === 'function' ? this.script(req, index) : this.script[index];
    if (!turn) throw new Error(`ScriptedModel: no scripted turn for call ${index} (script has ${(this.script as ScriptedTurn[]).length})`);
    return turn;
  }

  private async *play(turn: ScriptedTurn, call: ScriptedCall, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent, void, undefined> {
    const check = () => {
      if (signal?.aborted) throw abortReason(signal);
    };
    if (turn.waitFor) await Promise.race([typeof turn.waitFor === 'function' ? turn.waitFor() : turn.waitFor, untilAborted(signal)]);
    check();
    const deltas = typeof turn.text === 'string' ? [turn.text] : (turn.text ?? []);
    for (const [i, delta] of deltas.entries()) {
      await this.interrupt(turn, i, signal);
      yield { type: 'text', delta };
      check();
    }
    await this.interrupt(turn, deltas.length, signal);
    const calls: ToolCall[] = (turn.toolCalls ?? []).map((c, n) => ({ id: c.id ?? `call_${call.index}_${n}`, name: c.name, arguments: c.arguments ?? {} }));
    for (const c of calls) yield { type: 'tool_call', call: c };
    const stopReason = turn.stopReason ?? (calls.length ? 'tool_calls' : 'end');
    yield { type: 'done', stopReason, usage: turn.usage ?? { inputTokens: 0, outputTokens: 0 } };
  }

  /** Fail or hang when the turn says so at this many deltas. */
  private async interrupt(turn: ScriptedTurn, delivered: number, signal?: AbortSignal): Promise<void> {
    if (turn.error !== undefined && delivered === (turn.errorAfterDeltas ?? 0)) throw turn.error;
    if (turn.hangAfterDeltas === delivered) {
      await untilAborted(signal);
      throw abortReason(signal!);
    }
  }
}

/** A ModelResolver that always answers with the given provider, recording each request it resolved. */
export function scriptedResolver(
  model: ModelProvider,
  defaults: Partial<Record<ModelTier, string>> = {},
): ModelResolver & { requests: { access: NonNullable<Access>; modelId: string | null; tier: ModelTier }[] } {
  const requests: { access: NonNullable<Access>; modelId: string | null; tier: ModelTier }[] = [];
  return {
    requests,
    async resolve(access, modelId, tier): Promise<ResolvedModel> {
      requests.push({ access, modelId, tier });
      const id = modelId ?? defaults[tier] ?? `scripted-${tier}`;
      return { provider: model, providerName: model.name, model: id, modelId: id, keySource: 'none' };
    },
    async hasProvider() {
      return true;
    },
  };
}
