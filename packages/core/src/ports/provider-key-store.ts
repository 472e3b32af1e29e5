import type { Env, KeyedProvider, ProviderKeyRecord } from '../domain/types.ts';

/**
 * The provider-key part of the MetadataStore: a project's own Anthropic/OpenAI keys, stored encrypted.
 * Kept in its own file so the MetadataStore port stays small; MetadataStore extends it.
 */
export interface ProviderKeyStore {
  /** Insert a provider key record (keyEncrypted is already ciphertext). */
  createProviderKey(key: ProviderKeyRecord): Promise<void>;
  /** Provider keys of a project sandbox, newest first. */
  listProviderKeys(projectId: string, env: Env): Promise<ProviderKeyRecord[]>;
  /** A provider key by id, or null. */
  getProviderKey(id: string): Promise<ProviderKeyRecord | null>;
  /** Delete a provider key; deleting a missing id is a no-op. */
  deleteProviderKey(id: string): Promise<void>;
  /** The sandbox's newest key for a provider, or null when it has none. */
  findProviderKeyFor(projectId: string, env: Env, provider: KeyedProvider): Promise<ProviderKeyRecord | null>;
}
