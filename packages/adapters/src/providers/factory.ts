import type { ModelProvider, ModelProviderFactory, ProviderCredentials, ProviderName } from '@dossier/core';
import { createAnthropicProvider } from './anthropic.ts';
import { createOllamaProvider } from './ollama.ts';
import { createOpenAIProvider } from './openai.ts';

const BUILDERS: Record<ProviderName, (c: ProviderCredentials) => ModelProvider> = {
  anthropic: createAnthropicProvider,
  openai: createOpenAIProvider,
  ollama: createOllamaProvider,
};

/**
 * Model providers on the official SDKs (Anthropic, OpenAI, Ollama), each loaded on its first call. `baseUrl` points
 * any of them at a proxy or a test server; SDK retries are off because core decides retries.
 */
export function createModelProviderFactory(): ModelProviderFactory {
  return { create: (name, credentials) => BUILDERS[name](credentials) };
}
