import type { Access } from '../access.ts';
import { DossierError } from '../domain/errors.ts';
import type { KeyedProvider } from '../domain/types.ts';
import { MANAGED_KEY_ENV, providerLabel, specProvider } from '../providers/names.ts';
import type { ModelResolver } from './types.ts';

/** The error for a project that can reach no model provider; it says every way to configure one. */
export function noProviderError(projectId: string): DossierError {
  return new DossierError(
    'not_configured',
    `No model provider is configured for this project: add a key with POST /v1/projects/${projectId}/provider-keys ` +
      '(provider_a or provider_b), or configure DOSSIER_ANTHROPIC_API_KEY / DOSSIER_OPENAI_API_KEY / DOSSIER_OLLAMA_CHAT_MODEL on the server',
  );
}

/** The error for an explicit model id whose provider the project cannot use. */
export function providerMissingError(projectId: string, modelId: string, provider: KeyedProvider | 'ollama'): DossierError {
  if (provider === 'ollama') {
    return new DossierError('not_configured', `Model '${modelId}' needs an Ollama server: configure DOSSIER_OLLAMA_URL on the server`);
  }
  return new DossierError(
    'not_configured',
    `Model '${modelId}' needs ${providerLabel(provider)}: add a key with POST /v1/projects/${projectId}/provider-keys ` +
      `(provider ${specProvider(provider)}), or configure ${MANAGED_KEY_ENV[provider]} on the server`,
  );
}

/** The resolver of a Dossier built without one: every call is not_configured; hasProvider is false. */
export const unconfiguredResolver: ModelResolver = {
  async resolve(access: NonNullable<Access>) {
    throw noProviderError(access.projectId);
  },
  async hasProvider() {
    return false;
  },
};
