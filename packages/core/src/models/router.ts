import { DossierError } from '../domain/errors.ts';
import type { ProviderName } from '../ports/model-provider.ts';
import type { ModelTier } from './types.ts';

/** Default model ids per provider and tier; Ollama has none until the operator names its models. */
export type ModelDefaults = Record<ProviderName, Partial<Record<ModelTier, string>>>;

/**
 * The defaults of the spec's depth table: provider_a (Anthropic) first, provider_b (OpenAI) second. Best is
 * claude-sonnet-4-6, not 4-5: @anthropic-ai/sdk 1.12 lists claude-sonnet-4-5 as deprecated (end of life 2026-11-30).
 */
export const DEFAULT_MODELS: Readonly<ModelDefaults> = Object.freeze({
  anthropic: { fast: 'claude-haiku-4-5', best: 'claude-sonnet-4-6' },
  openai: { fast: 'gpt-4.1-mini', best: 'gpt-4.1' },
  ollama: {},
});

/** The prefix that sends a model id to Ollama (`ollama:llama3.1`). */
export const OLLAMA_PREFIX = 'ollama:';

/** Model-id prefixes and the provider family each belongs to (spec: Research depth levels, routing by prefix). */
const ROUTES: readonly { test: RegExp; provider: ProviderName }[] = [
  { test: /^claude-/, provider: 'anthropic' },
  { test: /^(gpt-|chatgpt-|o1(-|$)|o3(-|$)|o4(-|$))/, provider: 'openai' },
];

export const ACCEPTED_PREFIXES = ['claude-', 'gpt-', 'o1', 'o3', 'o4', 'chatgpt-', OLLAMA_PREFIX] as const;

/** Where a model id goes: the provider and its provider-native id. */
export interface ModelRoute {
  provider: ProviderName;
  /** The id passed to the provider (the `ollama:` prefix removed). */
  model: string;
}

export interface RouteOptions {
  /** Operator-configured Ollama model names that may be written without the `ollama:` prefix. */
  ollamaModels?: readonly string[];
}

/** Route a model id to its provider by prefix; an unknown prefix is an invalid_input error listing the accepted ones. */
export function routeModel(modelId: string, opts: RouteOptions = {}): ModelRoute {
  const id = modelId.trim();
  if (id.startsWith(OLLAMA_PREFIX)) {
    const name = id.slice(OLLAMA_PREFIX.length).trim();
    if (!name) throw new DossierError('invalid_input', `Model '${modelId}' names no Ollama model: write ollama:<name>`);
    return { provider: 'ollama', model: name };
  }
  const route = ROUTES.find((r) => r.test.test(id));
  if (route) return { provider: route.provider, model: id };
  if (id && opts.ollamaModels?.includes(id)) return { provider: 'ollama', model: id };
  const accepted = ACCEPTED_PREFIXES.map((p) => `'${p}'`).join(', ');
  throw new DossierError('invalid_input', `Unknown model '${modelId}': a model id must start with one of ${accepted}`);
}

/** The id shown to users for a provider-native model (`ollama:` added back for Ollama). */
export const displayModelId = (provider: ProviderName, model: string): string => (provider === 'ollama' ? `${OLLAMA_PREFIX}${model}` : model);

/** Merge operator overrides into the built-in defaults (an override replaces one provider's tier). */
export function mergeDefaults(overrides: Partial<Record<ProviderName, Partial<Record<ModelTier, string>>>> = {}): ModelDefaults {
  return {
    anthropic: { ...DEFAULT_MODELS.anthropic, ...overrides.anthropic },
    openai: { ...DEFAULT_MODELS.openai, ...overrides.openai },
    ollama: { ...DEFAULT_MODELS.ollama, ...overrides.ollama },
  };
}
