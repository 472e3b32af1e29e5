import type { ChatMessage, ChatRequest, ChatResult, ContentPart, StopReason, TokenUsage } from '@dossier/core';
import { parseToolArguments } from './tool-arguments.ts';

/** The Chat Completions shapes this adapter sends and reads (a subset of the SDK's types). */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAIMessageParam =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[] }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAIRequest {
  model: string;
  messages: OpenAIMessageParam[];
  tools?: { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  tool_choice?: 'auto' | 'none' | { type: 'function'; function: { name: string } };
  prompt_cache_key?: string;
  max_completion_tokens?: number;
  temperature?: number;
  stream?: boolean;
  stream_options?: { include_usage: boolean };
}

export interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

/** The usage of a call; OpenAI caches prompt prefixes by itself and reports the tokens read from its cache. */
export const openAIUsage = (u: OpenAIUsage | null | undefined): TokenUsage => ({
  inputTokens: u?.prompt_tokens ?? 0,
  outputTokens: u?.completion_tokens ?? 0,
  cacheReadTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
  cacheWriteTokens: 0,
});

export interface OpenAICompletion {
  choices: { message: { content: string | null; tool_calls?: OpenAIToolCall[] | null }; finish_reason: string | null }[];
  usage?: OpenAIUsage | null;
}

const userContent = (content: string | ContentPart[]): Extract<OpenAIMessageParam, { role: 'user' }>['content'] =>
  typeof content === 'string'
    ? content
    : content.map((p) => (p.type === 'text' ? p : { type: 'image_url' as const, image_url: { url: `data:${p.mimeType};base64,${p.base64}` } }));

function toParam(m: ChatMessage): OpenAIMessageParam {
  switch (m.role) {
    case 'system':
      return m;
    case 'user':
      return { role: 'user', content: userContent(m.content) };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    case 'assistant': {
      const calls = (m.toolCalls ?? []).map(
        (c): OpenAIToolCall => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }),
      );
      return calls.length ? { role: 'assistant', content: m.content || null, tool_calls: calls } : { role: 'assistant', content: m.content };
    }
  }
}

/**
 * A ChatRequest as a Chat Completions body. `max_completion_tokens` (not the deprecated max_tokens, which o-series
 * models reject); a streamed call asks for the final usage chunk. OpenAI caches a prompt's prefix by itself (from
 * 1,024 tokens): the body keeps the stable parts first (tools, then the system message, then the conversation in
 * order) and `prompt_cache_key` routes every call of one run to the same cache.
 */
export function toOpenAIRequest(req: ChatRequest, stream: boolean): OpenAIRequest {
  const body: OpenAIRequest = { model: req.model, messages: req.messages.map(toParam) };
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    if (req.toolChoice === 'none') body.tool_choice = 'none';
  }
  if (req.promptCache) body.prompt_cache_key = req.promptCache.key;
  if (typeof req.toolChoice === 'object') body.tool_choice = { type: 'function', function: { name: req.toolChoice.tool } };
  if (req.maxTokens !== undefined) body.max_completion_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return body;
}

export const openAIStopReason = (r: string | null | undefined): StopReason =>
  r === 'tool_calls' || r === 'function_call' ? 'tool_calls' : r === 'length' ? 'max_tokens' : 'end';

/** A whole completion as a ChatResult (first choice). */
export function fromOpenAICompletion(c: OpenAICompletion): ChatResult {
  const choice = c.choices[0];
  const calls = choice?.message.tool_calls ?? [];
  return {
    text: choice?.message.content ?? '',
    toolCalls: calls.map((t) => ({ id: t.id, name: t.function.name, arguments: parseToolArguments('OpenAI', t.function.name, t.function.arguments) })),
    stopReason: openAIStopReason(choice?.finish_reason),
    usage: openAIUsage(c.usage),
  };
}
