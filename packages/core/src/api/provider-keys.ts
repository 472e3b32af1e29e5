/** The provider-keys group of the public API (`dossier.providerKeys`): a project's own model-provider keys. */
import type { Access } from '../access.ts';
import type { ProviderKeyView } from '../providers/keys.ts';
import type { CreateProviderKeyInput } from '../schemas.ts';

/**
 * `dossier.providerKeys`: bring your own key. A project's keys (per environment) are stored encrypted and used
 * for its model calls before the server's managed ones; only a preview of a key is ever shown again.
 */
export interface ProviderKeyService {
  /**
   * Store a provider key for the caller's sandbox, encrypted with the server's secret.
   * @throws {DossierError} `unauthorized` (anonymous), `not_found` (another project), `invalid_input` (unknown provider).
   * @example
   * await dossier.providerKeys.create(access, access.projectId, { provider: 'openai', key: openAiKey, name: 'team key' });
   */
  create(access: Access, projectId: string, raw: CreateProviderKeyInput): Promise<ProviderKeyView>;
  /**
   * The sandbox's provider keys (previews only).
   * @throws {DossierError} `unauthorized`, `not_found` (another project).
   */
  list(access: Access, projectId: string): Promise<ProviderKeyView[]>;
  /**
   * Delete a provider key.
   * @throws {DossierError} `unauthorized`, `not_found` (another project, or unknown key).
   */
  delete(access: Access, projectId: string, keyId: string): Promise<void>;
}
