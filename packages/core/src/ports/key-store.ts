import type { ApiKeyRecord, OrgApiKeyRecord } from '../domain/types.ts';

/** API keys (part of the MetadataStore, issue 9): a project's live and test keys and an org's keys. */
export interface KeyStore {
  /** Insert an API key record. */
  createApiKey(key: ApiKeyRecord): Promise<void>;
  /** A non-revoked API key by the sha256 hex of its plaintext. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;

  /** Every key of a project, revoked ones too, newest first (ties by id, descending). */
  listApiKeys(projectId: string): Promise<ApiKeyRecord[]>;
  /** A project key by id, revoked or not; null when unknown. */
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** Mark a project or org key revoked at `at` (a revoked key stays revoked). */
  revokeApiKey(id: string, at: string): Promise<void>;
  /** Record that a project or org key was used at `at`. */
  touchApiKey(id: string, at: string): Promise<void>;
  createOrgApiKey(key: OrgApiKeyRecord): Promise<void>;
  /** A non-revoked org key by the sha256 hex of its plaintext. */
  findOrgApiKeyByHash(keyHash: string): Promise<OrgApiKeyRecord | null>;
  /** Every key of an org, revoked ones too, newest first. */
  listOrgApiKeys(orgId: string): Promise<OrgApiKeyRecord[]>;
  getOrgApiKey(id: string): Promise<OrgApiKeyRecord | null>;
}
