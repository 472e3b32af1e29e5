import { type Logger, type ModelProvider, type ModelProviderFactory, type ProviderCredentials, type ProviderName, silentLogger } from '@dossier/core';
import { createAnthropicProvider } from './anthropic.ts';
import { createOllamaProvider } from './ollama.ts';
import { createOpenAIProvider } from './openai.ts';
import { sdkLogger } from './sdk-logger.ts';

const BUILDERS: Record<ProviderName, (c: ProviderCredentials, log: Logger) => ModelProvider> = {
  anthropic: (c, log) => createAnthropicProvider(c, sdkLogger('anthropic', log)),
  openai: (c, log) => createOpenAIProvider(c, sdkLogger('openai', log)),
  ollama: (c) => createOllamaProvider(c),
};

/**
 * Model providers on the official SDKs (Anthropic, OpenAI, Ollama), each loaded on its first call. `baseUrl` points
 * any of them at a proxy or a test server; SDK retries are off because core decides retries. What the SDKs would
 * print to the console goes to `log` as JSON lines instead.
 */
export function createModelProviderFactory(opts: { log?: Logger } = {}): ModelProviderFactory {
  const log = opts.log ?? silentLogger;
  return { create: (name, credentials) => BUILDERS[name](credentials, log) };
}
