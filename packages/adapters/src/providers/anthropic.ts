import {
  type ChatRequest,
  type ChatResult,
  type ChatStreamEvent,
  DossierError,
  type ModelProvider,
  type ProviderCredentials,
  silentLogger,
} from '@dossier/core';
import { type AnthropicStreamEvent, anthropicStreamEvents } from './anthropic-stream.ts';
import { type AnthropicMessage, type AnthropicRequest, fromAnthropicMessage, toAnthropicRequest } from './anthropic-wire.ts';
import { type FailureContext, providerFailure } from './errors.ts';
import { SDK_LOG_LEVEL, type SdkLogger, sdkLogger } from './sdk-logger.ts';
import { importOptional } from '../optional.ts';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** The part of `@anthropic-ai/sdk` this adapter uses: `messages.create`, whole or streamed. */
interface AnthropicClient {
  messages: {
    create(body: AnthropicRequest, opts: { signal?: AbortSignal }): PromiseLike<AnthropicMessage | AsyncIterable<AnthropicStreamEvent>>;
  };
}
type AnthropicConstructor = new (opts: { apiKey: string; baseURL: string; maxRetries: number; logger: SdkLogger; logLevel: string }) => AnthropicClient;

/**
 * Load the SDK on first use. maxRetries 0: core decides retries. baseURL always explicit, so no env var redirects it;
 * its console output goes to Dossier's logger.
 */
async function loadClient(apiKey: string, baseURL: string, logger: SdkLogger): Promise<AnthropicClient> {
  const mod = await importOptional<{ default: AnthropicConstructor }>('@anthropic-ai/sdk', 'Anthropic models');
  return new mod.default({ apiKey, baseURL, maxRetries: 0, logger, logLevel: SDK_LOG_LEVEL });
}

/** Anthropic's Messages API (provider_a) through the official SDK: tools as tool_use/tool_result blocks. */
export function createAnthropicProvider(credentials: ProviderCredentials, logger: SdkLogger = sdkLogger('anthropic', silentLogger)): ModelProvider {
  const apiKey = credentials.apiKey;
  if (!apiKey) throw new DossierError('not_configured', 'An Anthropic (provider_a) API key is required');
  const baseUrl = credentials.baseUrl ?? ANTHROPIC_BASE_URL;
  let client: Promise<AnthropicClient> | null = null;
  const getClient = () => (client ??= loadClient(apiKey, baseUrl, logger));
  const failure = (req: ChatRequest): FailureContext => ({ label: 'Anthropic', baseUrl, apiKey, signal: req.signal });

  return {
    name: 'anthropic',
    async chat(req: ChatRequest): Promise<ChatResult> {
      try {
        const c = await getClient();
        const msg = (await c.messages.create(toAnthropicRequest(req, false), { signal: req.signal })) as AnthropicMessage;
        return fromAnthropicMessage(msg);
      } catch (err) {
        throw providerFailure(failure(req), err);
      }
    },
    async *stream(req: ChatRequest): AsyncGenerator<ChatStreamEvent> {
      try {
        const c = await getClient();
        const events = (await c.messages.create(toAnthropicRequest(req, true), { signal: req.signal })) as AsyncIterable<AnthropicStreamEvent>;
        yield* anthropicStreamEvents(events);
      } catch (err) {
        throw providerFailure(failure(req), err);
      }
    },
  };
}
