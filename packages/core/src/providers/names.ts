import type { KeyedProvider } from '../domain/types.ts';
import type { PROVIDER_SPELLINGS, SPEC_PROVIDERS } from '../vocabulary.ts';

/**
 * The spec writes the two keyed providers as `provider_a` (Anthropic) and `provider_b` (OpenAI); DESIGN.md says
 * the API accepts both spellings. Requests take either; responses always use the spec's value.
 */
export type SpecProvider = (typeof SPEC_PROVIDERS)[number];

const TO_SPEC: Record<KeyedProvider, SpecProvider> = { anthropic: 'provider_a', openai: 'provider_b' };

/** Every accepted spelling of a keyed provider. */
export { PROVIDER_SPELLINGS } from '../vocabulary.ts';
export type ProviderSpelling = (typeof PROVIDER_SPELLINGS)[number];

/** The internal provider name of either spelling. */
export const keyedProvider = (p: ProviderSpelling): KeyedProvider => (p === 'provider_a' ? 'anthropic' : p === 'provider_b' ? 'openai' : p);

/** The spec's value of a provider, as responses show it. */
export const specProvider = (p: KeyedProvider): SpecProvider => TO_SPEC[p];

/** Human label used in messages: `provider_a (Anthropic)`. */
export const providerLabel = (p: KeyedProvider): string => `${TO_SPEC[p]} (${p === 'anthropic' ? 'Anthropic' : 'OpenAI'})`;

/** The server's environment variable of each provider's managed key (named in not_configured messages). */
export const MANAGED_KEY_ENV: Record<KeyedProvider, string> = {
  anthropic: 'DOSSIER_ANTHROPIC_API_KEY',
  openai: 'DOSSIER_OPENAI_API_KEY',
};
