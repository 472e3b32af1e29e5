/** A tool the model may call; parameters is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A tool call requested by the model. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** Part of a user message: text, or an image (for captioning with a vision-capable model). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; mimeType: string; base64: string };

/** One message of a conversation, provider-neutral. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** Tokens consumed by one call. */
export interface TokenUsage {
  /** Every input token billed, prompt-cache reads and writes included. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (billed at a fraction of the input price). */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (Anthropic bills them above the input price). */
  cacheWriteTokens?: number;
}

/** Why the model stopped. */
export type StopReason = 'end' | 'tool_calls' | 'max_tokens';

/** One chat call. */
export interface ChatRequest {
  /** Provider-native model id (routing prefixes such as `ollama:` already removed). */
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  maxTokens?: number;
  temperature?: number;
  /**
   * `none` keeps the tools in the request (a stable, cacheable prefix) but the model may not call them;
   * `{tool}` makes the model call that tool (structured output). Default `auto`.
   */
  toolChoice?: 'auto' | 'none' | { tool: string };
  /**
   * Ask for prompt caching: the stable prefix (tools, system prompt) and the conversation so far are marked as
   * cache breakpoints (Anthropic), or the prompt is keyed for the provider's automatic cache (OpenAI). `key`
   * identifies requests that share a prefix (one agent run).
   */
  promptCache?: { key: string };
  signal?: AbortSignal;
}

/** The whole answer of a non-streamed call. */
export interface ChatResult {
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage: TokenUsage;
}

/** Events of a streamed call, in order; `done` is always last. */
export type ChatStreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'done'; stopReason: StopReason; usage: TokenUsage };

/** Which provider family a model belongs to (`anthropic` is the spec's provider_a, `openai` provider_b). */
export type ProviderName = 'anthropic' | 'openai' | 'ollama';

/**
 * Chat with tool calls on one provider account. Failures throw DossierError with code `provider_error`
 * (or `unauthorized`/`rate_limited`); `retryable` says whether the same call may succeed later and
 * `retryAfterMs` carries the provider's `retry-after`. Adapters never retry by themselves: core decides.
 */
export interface ModelProvider {
  /** The provider family. */
  readonly name: ProviderName;
  /** One call, answer complete. */
  chat(req: ChatRequest): Promise<ChatResult>;
  /** One call, streamed; ends with a `done` event or throws. */
  stream(req: ChatRequest): AsyncIterable<ChatStreamEvent>;
}

/** Credentials and endpoint for building a provider client. */
export interface ProviderCredentials {
  apiKey?: string;
  baseUrl?: string;
}

/** Builds provider clients; the adapter owns the SDKs, core chooses the key. */
export interface ModelProviderFactory {
  /** A client for the provider with these credentials. */
  create(name: ProviderName, credentials: ProviderCredentials): ModelProvider;
}
