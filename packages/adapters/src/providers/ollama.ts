import type { ChatRequest, ChatResult, ChatStreamEvent, ModelProvider, ProviderCredentials } from '@dossier/core';
import { type FailureContext, incompleteStream, providerFailure } from './errors.ts';
import { fromOllamaToolCalls, type OllamaChatRequest, type OllamaChatResponse, ollamaStopReason, ollamaUsage, toOllamaRequest } from './ollama-wire.ts';
import { importOptional } from '../optional.ts';

export const OLLAMA_CHAT_BASE_URL = 'http://127.0.0.1:11434';

/** The part of the `ollama` client this adapter uses: `chat`, whole (JSON) or streamed (NDJSON). */
interface OllamaClient {
  chat(request: OllamaChatRequest): Promise<OllamaChatResponse | AsyncIterable<OllamaChatResponse>>;
}
type OllamaConstructor = new (config: { host: string; fetch: typeof fetch }) => OllamaClient;

/**
 * A client for one call. The `ollama` client takes no AbortSignal on whole calls, so the call's signal is joined
 * into every fetch it makes; clients are plain objects, so one per call costs nothing.
 */
async function clientFor(host: string, signal: AbortSignal | undefined): Promise<OllamaClient> {
  const { Ollama } = await importOptional<{ Ollama: OllamaConstructor }>('ollama', 'Ollama models');
  const joined: typeof fetch = (input, init) => {
    const signals = [init?.signal, signal].filter((s): s is AbortSignal => !!s);
    return fetch(input, { ...init, signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0] });
  };
  return new Ollama({ host, fetch: joined });
}

async function* ollamaStreamEvents(chunks: AsyncIterable<OllamaChatResponse>): AsyncGenerator<ChatStreamEvent> {
  let sawToolCalls = false;
  for await (const chunk of chunks) {
    if (chunk.message?.content) yield { type: 'text', delta: chunk.message.content };
    for (const call of fromOllamaToolCalls(chunk.message?.tool_calls)) {
      sawToolCalls = true;
      yield { type: 'tool_call', call };
    }
    if (chunk.done) {
      yield { type: 'done', stopReason: ollamaStopReason(chunk.done_reason, sawToolCalls), usage: ollamaUsage(chunk) };
      return;
    }
  }
  throw incompleteStream('Ollama');
}

/** A local Ollama server's `/api/chat` (no key) through the `ollama` client, with tools. */
export function createOllamaProvider(credentials: ProviderCredentials): ModelProvider {
  const host = (credentials.baseUrl ?? OLLAMA_CHAT_BASE_URL).replace(/\/+$/, '');
  const failure = (req: ChatRequest): FailureContext => ({ label: 'Ollama', baseUrl: host, signal: req.signal });
  return {
    name: 'ollama',
    async chat(req: ChatRequest): Promise<ChatResult> {
      try {
        const res = (await (await clientFor(host, req.signal)).chat(toOllamaRequest(req, false))) as OllamaChatResponse;
        const toolCalls = fromOllamaToolCalls(res.message?.tool_calls);
        const stopReason = ollamaStopReason(res.done_reason, toolCalls.length > 0);
        return { text: res.message?.content ?? '', toolCalls, stopReason, usage: ollamaUsage(res) };
      } catch (err) {
        throw providerFailure(failure(req), err);
      }
    },
    async *stream(req: ChatRequest): AsyncGenerator<ChatStreamEvent> {
      try {
        const chunks = (await (await clientFor(host, req.signal)).chat(toOllamaRequest(req, true))) as AsyncIterable<OllamaChatResponse>;
        yield* ollamaStreamEvents(chunks);
      } catch (err) {
        throw providerFailure(failure(req), err);
      }
    },
  };
}
