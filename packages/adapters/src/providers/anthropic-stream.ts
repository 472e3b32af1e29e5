import type { ChatStreamEvent, StopReason, TokenUsage } from '@dossier/core';
import { type AnthropicUsage, anthropicStopReason, anthropicUsage } from './anthropic-wire.ts';
import { incompleteStream } from './errors.ts';
import { parseToolArguments } from './tool-arguments.ts';

/** The raw Messages API stream events this adapter reads (SDK `RawMessageStreamEvent`, narrowed). */
export type AnthropicStreamEvent =
  | { type: 'message_start'; message: { usage: AnthropicUsage } }
  | { type: 'content_block_start'; index: number; content_block: { type: string; id?: string; name?: string } }
  | { type: 'content_block_delta'; index: number; delta: { type: string; text?: string; partial_json?: string } }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason?: string | null }; usage?: AnthropicUsage }
  | { type: 'message_stop' }
  | { type: 'ping' };

/** A tool_use block being streamed: its input arrives as input_json_delta fragments. */
interface OpenToolUse {
  id: string;
  name: string;
  json: string;
}

/**
 * Turn the SDK's raw stream events into ChatStreamEvents: text deltas as they come, each tool call once its block
 * stops (arguments assembled from the fragments), then `done` at message_stop. A stream that ends without
 * message_stop (connection dropped) throws a retryable provider_error.
 */
export async function* anthropicStreamEvents(events: AsyncIterable<AnthropicStreamEvent>): AsyncGenerator<ChatStreamEvent> {
  const tools = new Map<number, OpenToolUse>();
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let stopReason: StopReason = 'end';
  for await (const e of events) {
    if (e.type === 'message_start') {
      usage = anthropicUsage(e.message.usage);
    } else if (e.type === 'content_block_start' && e.content_block.type === 'tool_use') {
      tools.set(e.index, { id: e.content_block.id ?? '', name: e.content_block.name ?? '', json: '' });
    } else if (e.type === 'content_block_delta') {
      if (e.delta.type === 'text_delta' && e.delta.text) yield { type: 'text', delta: e.delta.text };
      const open = tools.get(e.index);
      if (e.delta.type === 'input_json_delta' && open) open.json += e.delta.partial_json ?? '';
    } else if (e.type === 'content_block_stop') {
      const open = tools.get(e.index);
      tools.delete(e.index);
      if (open) yield { type: 'tool_call', call: { id: open.id, name: open.name, arguments: parseToolArguments('Anthropic', open.name, open.json) } };
    } else if (e.type === 'message_delta') {
      stopReason = anthropicStopReason(e.delta.stop_reason);
      // message_delta usage is cumulative; input and cache fields appear there only on some API versions.
      if (e.usage) usage = mergeUsage(usage, e.usage);
    } else if (e.type === 'message_stop') {
      yield { type: 'done', stopReason, usage };
      return;
    }
  }
  throw incompleteStream('Anthropic');
}

/** message_start usage overlaid with the fields a later message_delta carries. */
function mergeUsage(start: TokenUsage, delta: AnthropicUsage): TokenUsage {
  const known = (v: number | null | undefined, fallback: number | undefined) => (v == null ? (fallback ?? 0) : v);
  const cacheRead = known(delta.cache_read_input_tokens, start.cacheReadTokens);
  const cacheWrite = known(delta.cache_creation_input_tokens, start.cacheWriteTokens);
  const uncached = delta.input_tokens == null ? start.inputTokens - (start.cacheReadTokens ?? 0) - (start.cacheWriteTokens ?? 0) : delta.input_tokens;
  return {
    inputTokens: uncached + cacheRead + cacheWrite,
    outputTokens: known(delta.output_tokens, start.outputTokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}
