import { randomUUID } from 'node:crypto';
import type { ChatMessage, ChatRequest, StopReason, ToolCall } from '@dossier/core';
import { parseToolArguments } from './tool-arguments.ts';

/** The `/api/chat` shapes this adapter sends and reads (a subset of the `ollama` client's types). */
export interface OllamaToolCall {
  id?: string;
  function: { name: string; arguments: Record<string, unknown> | string };
}

export interface OllamaMessage {
  role: string;
  content: string;
  images?: string[];
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
}

export interface OllamaChatRequest {
  model: string;
  messages: OllamaMessage[];
  tools?: { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  options?: { num_predict?: number; temperature?: number };
  stream: boolean;
}

export interface OllamaChatResponse {
  message?: OllamaMessage;
  done: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
}

function toOllamaMessage(m: ChatMessage): OllamaMessage {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user': {
      if (typeof m.content === 'string') return { role: 'user', content: m.content };
      const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      const images = m.content.flatMap((p) => (p.type === 'image' ? [p.base64] : []));
      return images.length ? { role: 'user', content: text, images } : { role: 'user', content: text };
    }
    case 'tool':
      return { role: 'tool', content: m.content, tool_name: m.name };
    case 'assistant': {
      const calls = (m.toolCalls ?? []).map((c) => ({ function: { name: c.name, arguments: c.arguments } }));
      return calls.length ? { role: 'assistant', content: m.content, tool_calls: calls } : { role: 'assistant', content: m.content };
    }
  }
}

/** A ChatRequest as an `/api/chat` body: tool results name their tool (`tool_name`), images travel as base64. */
export function toOllamaRequest(req: ChatRequest, stream: boolean): OllamaChatRequest {
  const body: OllamaChatRequest = { model: req.model, messages: req.messages.map(toOllamaMessage), stream };
  // Ollama has no tool_choice: a turn that may not call tools goes without them.
  if (req.tools?.length && req.toolChoice !== 'none') {
    body.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  const options = { num_predict: req.maxTokens, temperature: req.temperature };
  if (options.num_predict !== undefined || options.temperature !== undefined) body.options = JSON.parse(JSON.stringify(options));
  return body;
}

/** Ollama's tool calls as ToolCalls; Ollama may omit ids, so missing ones are generated (tool results go by name). */
export const fromOllamaToolCalls = (calls: OllamaToolCall[] | undefined): ToolCall[] =>
  (calls ?? []).map((c) => ({
    id: c.id ?? `call_${randomUUID()}`,
    name: c.function.name,
    arguments: typeof c.function.arguments === 'string' ? parseToolArguments('Ollama', c.function.name, c.function.arguments) : c.function.arguments,
  }));

export const ollamaStopReason = (doneReason: string | undefined, sawToolCalls: boolean): StopReason =>
  doneReason === 'length' ? 'max_tokens' : sawToolCalls ? 'tool_calls' : 'end';

export const ollamaUsage = (r: OllamaChatResponse) => ({ inputTokens: r.prompt_eval_count ?? 0, outputTokens: r.eval_count ?? 0 });
