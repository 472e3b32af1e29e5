import type { Access } from '../access.ts';
import type { ModelProvider, ProviderName } from '../ports/model-provider.ts';

/** How fast or how good a default model should be (research depths and post-ready jobs pick one). */
export type ModelTier = 'fast' | 'best';

/** A provider client ready to call, with the provider-native model id and the id as the user wrote it. */
export interface ResolvedModel {
  provider: ModelProvider;
  providerName: ProviderName;
  /** Provider-native id passed in ChatRequest.model (e.g. `llama3.1` for `ollama:llama3.1`). */
  model: string;
  /** The id as stored on sessions and shown to users (e.g. `ollama:llama3.1`). */
  modelId: string;
  /** Whose key pays: the project's own key, or the operator's managed key (or none for Ollama). */
  keySource: 'project' | 'managed' | 'none';
}

/**
 * Turns a model id (or a tier default) into a provider client for a project: routes the id to its provider by
 * prefix, then uses the project's own provider key before the operator's managed key. Throws
 * DossierError('not_configured') with a message that says how to configure a provider when none is usable.
 */
export interface ModelResolver {
  /** The model to call for this project; `modelId` null means the default of the tier. */
  resolve(access: NonNullable<Access>, modelId: string | null, tier: ModelTier): Promise<ResolvedModel>;
  /** Whether the project can reach any provider (post-ready jobs are skipped when it cannot). */
  hasProvider(access: NonNullable<Access>): Promise<boolean>;
}
