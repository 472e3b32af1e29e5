import {
  createModelResolver,
  type Logger,
  type ManagedProviders,
  type MetadataStore,
  type ModelDefaults,
  type ModelProviderFactory,
  type ModelResolver,
  type ProviderName,
  type SecretBox,
} from '@dossier/core';
import { DEFAULT_OLLAMA_URL } from '../embedders/ollama.ts';
import { createModelProviderFactory } from './factory.ts';

/** The operator's model providers, as createDossier takes them (the server builds them from its config). */
export interface ProviderOptions {
  /** Managed Anthropic (provider_a) key; `baseUrl` also applies to projects' own keys (proxies, tests). */
  anthropic?: { apiKey?: string; baseUrl?: string };
  /** Managed OpenAI (provider_b) key; `baseUrl` also applies to projects' own keys. */
  openai?: { apiKey?: string; baseUrl?: string };
  /** Ollama chat: `chatModel` is the fast default, `bestChatModel` the best one (default: chatModel). */
  ollama?: { baseUrl?: string; chatModel?: string; bestChatModel?: string };
  /** Per-provider tier defaults over the built-in ones (claude-haiku-4-5 / claude-sonnet-4-6, gpt-4.1-mini / gpt-4.1). */
  defaults?: Partial<ModelDefaults>;
  /** Operator-wide model ids for the tiers, used first whenever the project can reach their provider. */
  fastModel?: string;
  bestModel?: string;
  /** Provider tried first for defaults (otherwise Anthropic, then OpenAI, then Ollama). */
  preferredProvider?: ProviderName;
}

export interface ResolverParts {
  store: MetadataStore;
  secrets: SecretBox;
  log: Logger;
  /** Ollama URL of the embedders, used when providers.ollama.baseUrl is unset. */
  ollamaUrl?: string;
  /** Provider clients (default: the official SDKs); tests inject their own. */
  factory?: ModelProviderFactory;
}

function managedFrom(p: ProviderOptions, ollamaUrl: string): ManagedProviders {
  return {
    anthropic: p.anthropic,
    openai: p.openai,
    // Ollama is local and keyless: explicit `ollama:` ids always go to it; it serves defaults only with a chat model.
    ollama: { baseUrl: p.ollama?.baseUrl ?? ollamaUrl, fastModel: p.ollama?.chatModel, bestModel: p.ollama?.bestChatModel },
  };
}

/** The ModelResolver of an embedded Dossier: projects' own keys first, then these managed providers. */
export function buildModelResolver(p: ProviderOptions, parts: ResolverParts): ModelResolver {
  const managed = managedFrom(p, parts.ollamaUrl ?? DEFAULT_OLLAMA_URL);
  parts.log.info('model providers', {
    anthropicManagedKey: Boolean(p.anthropic?.apiKey),
    openaiManagedKey: Boolean(p.openai?.apiKey),
    ollamaChatModel: p.ollama?.chatModel ?? null,
  });
  return createModelResolver({
    store: parts.store,
    secrets: parts.secrets,
    factory: parts.factory ?? createModelProviderFactory(),
    managed,
    defaults: p.defaults,
    tierModels: { fast: p.fastModel, best: p.bestModel },
    preferredProvider: p.preferredProvider,
    ollamaModels: [p.ollama?.chatModel, p.ollama?.bestChatModel].filter((m): m is string => Boolean(m)),
  });
}
