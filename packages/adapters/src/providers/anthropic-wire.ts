import type { ChatMessage, ChatRequest, ChatResult, ContentPart, StopReason, TokenUsage, ToolCall } from '@dossier/core';

/** A prompt-cache breakpoint: the prefix up to and including the marked block is cached (5 minutes). */
export interface CacheControl {
  cache_control?: { type: 'ephemeral' };
}

/** The Messages API shapes this adapter sends and reads (a subset of the SDK's types). */
export type AnthropicBlock = (
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string }
) &
  CacheControl;

type AnthropicTool = { name: string; description: string; input_schema: Record<string, unknown> } & CacheControl;

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  system?: string | ({ type: 'text'; text: string } & CacheControl)[];
  messages: AnthropicMessageParam[];
  tools?: AnthropicTool[];
  tool_choice?: { type: 'auto' | 'none' } | { type: 'tool'; name: string };
  temperature?: number;
  stream?: boolean;
}

export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export interface AnthropicMessage {
  content: { type: string; text?: string; id?: string; name?: string; input?: unknown }[];
  stop_reason: string | null;
  usage: AnthropicUsage;
}

/** Anthropic requires max_tokens; this is the answer budget when the caller sets none. */
export const DEFAULT_MAX_TOKENS = 4096;

const userBlocks = (content: string | ContentPart[]): AnthropicBlock[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : content.map((p) =>
        p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image', source: { type: 'base64', media_type: p.mimeType, data: p.base64 } },
      );

function toParam(m: Exclude<ChatMessage, { role: 'system' }>): AnthropicMessageParam {
  if (m.role === 'user') return { role: 'user', content: userBlocks(m.content) };
  if (m.role === 'tool') return { role: 'user', content: [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }] };
  const calls: AnthropicBlock[] = (m.toolCalls ?? []).map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments }));
  return { role: 'assistant', content: [...(m.content ? [{ type: 'text' as const, text: m.content }] : []), ...calls] };
}

/**
 * A ChatRequest as a Messages API body: system messages join into `system`; tool results become tool_result
 * blocks of a user turn; consecutive turns of one role merge, so every tool result of a step lands in the one
 * user message that must follow the assistant's tool_use blocks.
 */
export function toAnthropicRequest(req: ChatRequest, stream: boolean): AnthropicRequest {
  const system = req.messages.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n\n');
  const messages: AnthropicMessageParam[] = [];
  for (const m of req.messages) {
    if (m.role === 'system') continue;
    const param = toParam(m);
    const last = messages.at(-1);
    if (last && last.role === param.role) last.content.push(...param.content);
    else messages.push(param);
  }
  const body: AnthropicRequest = { model: req.model, max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS, messages };
  if (system) body.system = system;
  if (req.tools?.length) body.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  if (req.tools?.length && req.toolChoice === 'none') body.tool_choice = { type: 'none' };
  if (typeof req.toolChoice === 'object') body.tool_choice = { type: 'tool', name: req.toolChoice.tool };
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (stream) body.stream = true;
  if (req.promptCache) markCacheBreakpoints(body);
  return body;
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Prompt-cache breakpoints (at most 4 per request): the last tool and the system prompt (the stable prefix, in the
 * API's order tools → system → messages), and the end of the conversation, so the next turn of the same run reads
 * everything up to here from the cache; the previous user turn gets one too, so the read still hits when a turn
 * added more than the 20 blocks the API looks back over. A prefix under the model's minimum (1,024–4,096 tokens)
 * is simply not cached.
 */
function markCacheBreakpoints(body: AnthropicRequest): void {
  const lastTool = body.tools?.at(-1);
  if (lastTool) lastTool.cache_control = EPHEMERAL;
  if (typeof body.system === 'string') body.system = [{ type: 'text', text: body.system, cache_control: EPHEMERAL }];
  const users = body.messages.filter((m) => m.role === 'user');
  for (const m of [users.at(-2), body.messages.at(-1)]) {
    const block = m?.content.at(-1);
    if (block) block.cache_control = EPHEMERAL;
  }
}

export const anthropicStopReason = (r: string | null | undefined): StopReason => (r === 'tool_use' ? 'tool_calls' : r === 'max_tokens' ? 'max_tokens' : 'end');

/** Input tokens include prompt-cache writes and reads: they are all billed input. */
export const anthropicInputTokens = (u: AnthropicUsage): number =>
  (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);

/** The usage of a call, prompt-cache reads and writes apart as well as in inputTokens. */
export const anthropicUsage = (u: AnthropicUsage): TokenUsage => ({
  inputTokens: anthropicInputTokens(u),
  outputTokens: u.output_tokens ?? 0,
  cacheReadTokens: u.cache_read_input_tokens ?? 0,
  cacheWriteTokens: u.cache_creation_input_tokens ?? 0,
});

/** A whole Messages API answer as a ChatResult. */
export function fromAnthropicMessage(msg: AnthropicMessage): ChatResult {
  const text = msg.content.flatMap((b) => (b.type === 'text' && b.text ? [b.text] : [])).join('');
  const toolCalls: ToolCall[] = msg.content.flatMap((b) =>
    b.type === 'tool_use' ? [{ id: b.id ?? '', name: b.name ?? '', arguments: (b.input ?? {}) as Record<string, unknown> }] : [],
  );
  return { text, toolCalls, stopReason: anthropicStopReason(msg.stop_reason), usage: anthropicUsage(msg.usage) };
}
