import type { ChatStreamEvent, StopReason, TokenUsage } from '@dossier/core';
import { incompleteStream } from './errors.ts';
import { type OpenAIUsage, openAIStopReason, openAIUsage } from './openai-wire.ts';
import { parseToolArguments } from './tool-arguments.ts';

/** One streamed Chat Completions chunk as this adapter reads it. */
export interface OpenAIChunk {
  choices: {
    delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] };
    finish_reason?: string | null;
  }[];
  usage?: OpenAIUsage | null;
}

interface PartialCall {
  id: string;
  name: string;
  json: string;
}

/** Accumulate tool_call fragments by index: the id and name come first, the arguments in pieces. */
function accumulate(calls: Map<number, PartialCall>, deltas: NonNullable<NonNullable<OpenAIChunk['choices'][number]['delta']>['tool_calls']>): void {
  for (const d of deltas) {
    const call = calls.get(d.index) ?? { id: '', name: '', json: '' };
    if (d.id) call.id = d.id;
    if (d.function?.name && !call.name) call.name = d.function.name;
    if (d.function?.arguments) call.json += d.function.arguments;
    calls.set(d.index, call);
  }
}

/**
 * Turn streamed chunks into ChatStreamEvents: text deltas as they come; tool calls, in index order, once the
 * finish_reason arrives; `done` when the SDK reaches `[DONE]` (after the include_usage chunk). A stream that ends
 * before any finish_reason (connection dropped) throws a retryable provider_error.
 */
export async function* openAIStreamEvents(chunks: AsyncIterable<OpenAIChunk>): AsyncGenerator<ChatStreamEvent> {
  const calls = new Map<number, PartialCall>();
  let usage: TokenUsage = openAIUsage(null);
  let stopReason: StopReason | null = null;
  for await (const chunk of chunks) {
    const choice = chunk.choices[0];
    if (choice?.delta?.content) yield { type: 'text', delta: choice.delta.content };
    if (choice?.delta?.tool_calls) accumulate(calls, choice.delta.tool_calls);
    if (chunk.usage) usage = openAIUsage(chunk.usage);
    if (!choice?.finish_reason) continue;
    stopReason = openAIStopReason(choice.finish_reason);
    for (const [, c] of [...calls].sort(([a], [b]) => a - b)) {
      yield { type: 'tool_call', call: { id: c.id, name: c.name, arguments: parseToolArguments('OpenAI', c.name, c.json) } };
    }
    calls.clear();
  }
  if (stopReason === null) throw incompleteStream('OpenAI');
  yield { type: 'done', stopReason, usage };
}
