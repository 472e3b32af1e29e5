/**
 * The keys group of the public API (`dossier.keys`): a project's API keys and an org's keys, managed by a signed-in
 * member. The caller's role is checked by the server's role gate (`dossier.orgs.roleIn`); core answers `not_found`
 * for orgs, projects and keys the caller cannot see. A key's secret appears only in the answer that creates it.
 */
import type { SessionClaims } from '../auth/jwt.ts';
import type { ApiKeyView } from '../auth/key-service.ts';
import type { ProjectPath } from '../agents/service.ts';

/** `dossier.keys`: list, create, rotate and revoke project keys and org keys. */
export interface KeyService {
  /**
   * The project's keys (live and test), without their secrets.
   * @throws {DossierError} `not_found` (org or project).
   */
  listProjectKeys(claims: SessionClaims, path: ProjectPath): Promise<ApiKeyView[]>;
  /**
   * Create a key of the project (`{ env, name }`); the answer carries its secret, never shown again.
   * @throws {DossierError} `not_found`, `invalid_input`.
   * @example
   * const { key } = await dossier.keys.createProjectKey(claims, { orgId, projectId }, { env: 'live', name: 'ci' });
   */
  createProjectKey(claims: SessionClaims, path: ProjectPath, raw: unknown): Promise<ApiKeyView & { key: string }>;
  /**
   * Revoke a key at once: requests with it get 401, and streams opened with it close.
   * @throws {DossierError} `not_found` (org, project or key).
   */
  revokeProjectKey(claims: SessionClaims, path: ProjectPath, keyId: string): Promise<void>;
  /**
   * A new key for the same sandbox and name; the old one is revoked.
   * @throws {DossierError} `not_found`.
   */
  rotateProjectKey(claims: SessionClaims, path: ProjectPath, keyId: string): Promise<ApiKeyView & { key: string }>;
  /**
   * The org's keys (they act for the org's hosted agents), without their secrets.
   * @throws {DossierError} `not_found` (org).
   */
  listOrgKeys(claims: SessionClaims, orgId: string): Promise<ApiKeyView[]>;
  /**
   * Create an org key; the answer carries its secret, never shown again.
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  createOrgKey(claims: SessionClaims, orgId: string, raw: unknown): Promise<ApiKeyView & { key: string }>;
  /**
   * Revoke an org key at once.
   * @throws {DossierError} `not_found` (org or key).
   */
  revokeOrgKey(claims: SessionClaims, orgId: string, keyId: string): Promise<void>;
}
