import {
  type ChatRequest,
  type ChatResult,
  type ChatStreamEvent,
  DossierError,
  type ModelProvider,
  type ProviderCredentials,
  silentLogger,
} from '@dossier/core';
import { type FailureContext, providerFailure } from './errors.ts';
import { SDK_LOG_LEVEL, type SdkLogger, sdkLogger } from './sdk-logger.ts';
import { type OpenAIChunk, openAIStreamEvents } from './openai-stream.ts';
import { fromOpenAICompletion, type OpenAICompletion, type OpenAIRequest, toOpenAIRequest } from './openai-wire.ts';
import { importOptional } from '../optional.ts';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The part of the `openai` SDK this adapter uses: `chat.completions.create`, whole or streamed. */
interface OpenAIClient {
  chat: {
    completions: {
      create(body: OpenAIRequest, opts: { signal?: AbortSignal }): PromiseLike<OpenAICompletion | AsyncIterable<OpenAIChunk>>;
    };
  };
}
type OpenAIConstructor = new (opts: {
  apiKey: string;
  baseURL: string;
  maxRetries: number;
  organization: null;
  project: null;
  logger: SdkLogger;
  logLevel: string;
}) => OpenAIClient;

/** Load the SDK on first use; maxRetries 0 (core decides); explicit baseURL/org/project so no env var changes them; console output to Dossier's logger. */
async function loadClient(apiKey: string, baseURL: string, logger: SdkLogger): Promise<OpenAIClient> {
  const mod = await importOptional<{ default: OpenAIConstructor }>('openai', 'OpenAI models');
  return new mod.default({ apiKey, baseURL, maxRetries: 0, organization: null, project: null, logger, logLevel: SDK_LOG_LEVEL });
}

/** OpenAI's Chat Completions API (provider_b) through the official SDK, with function tools. */
export function createOpenAIProvider(credentials: ProviderCredentials, logger: SdkLogger = sdkLogger('openai', silentLogger)): ModelProvider {
  const apiKey = credentials.apiKey;
  if (!apiKey) throw new DossierError('not_configured', 'An OpenAI (provider_b) API key is required');
  const baseUrl = credentials.baseUrl ?? OPENAI_BASE_URL;
  let client: Promise<OpenAIClient> | null = null;
  const getClient = () => (client ??= loadClient(apiKey, baseUrl, logger));
  const failure = (req: ChatRequest): FailureContext => ({ label: 'OpenAI', baseUrl, apiKey, signal: req.signal });

  return {
    name: 'openai',
    async chat(req: ChatRequest): Promise<ChatResult> {
      try {
        const c = await getClient();
        const completion = (await c.chat.completions.create(toOpenAIRequest(req, false), { signal: req.signal })) as OpenAICompletion;
        return fromOpenAICompletion(completion);
      } catch (err) {
        throw providerFailure(failure(req), err);
      }
    },
    async *stream(req: ChatRequest): AsyncGenerator<ChatStreamEvent> {
      try {
        const c = await getClient();
        const chunks = (await c.chat.completions.create(toOpenAIRequest(req, true), { signal: req.signal })) as AsyncIterable<OpenAIChunk>;
        yield* openAIStreamEvents(chunks);
      } catch (err) {
        throw providerFailure(failure(req), err);
      }
    },
  };
}
