/**
 * The orgs group of the public API (`dossier.orgs`): orgs, their members and projects, and the signed-in account's
 * password and tokens. Orgs the caller is not a member of answer `not_found`, so their ids reveal nothing.
 */
import type { SessionClaims } from '../auth/jwt.ts';
import type { CreatedProject } from '../auth/org-service.ts';
import type { OrgRole } from '../auth/roles.ts';
import type { Org, Project } from '../domain/types.ts';
import type { OrgMember } from '../ports/tenancy-store.ts';

/** `dossier.orgs`: create, rename and delete orgs and projects; members and their roles; password and log-out. */
export interface OrgService {
  /**
   * The caller's role in the org (issue 33: the server's role gate asks it for every JWT caller of a route with an
   * org in its path).
   * @throws {DossierError} `not_found` (not a member).
   */
  roleIn(claims: SessionClaims, orgId: string): Promise<OrgRole>;
  /**
   * A new org (`{ name }`); its creator is its admin.
   * @throws {DossierError} `invalid_input`.
   */
  createOrg(claims: SessionClaims, raw: unknown): Promise<Org>;
  /**
   * Rename an org (`{ name }`).
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  renameOrg(claims: SessionClaims, orgId: string, raw: unknown): Promise<Org>;
  /**
   * Delete an org with its projects.
   * @throws {DossierError} `not_found`, `conflict` (a project still has collections: delete them first).
   */
  deleteOrg(claims: SessionClaims, orgId: string): Promise<void>;
  /**
   * A new project of the org (`{ name }`) with its live and test keys (in this answer only).
   * @throws {DossierError} `not_found`, `invalid_input`.
   * @example
   * const { project, liveKey } = await dossier.orgs.createProject(claims, orgId, { name: 'Support bot' });
   */
  createProject(claims: SessionClaims, orgId: string, raw: unknown): Promise<CreatedProject>;
  /**
   * Rename a project (`{ name }`).
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  renameProject(claims: SessionClaims, path: { orgId: string; projectId: string }, raw: unknown): Promise<Project>;
  /**
   * Delete a project with its keys.
   * @throws {DossierError} `not_found`, `conflict` (the project still has collections: delete them first).
   */
  deleteProject(claims: SessionClaims, path: { orgId: string; projectId: string }): Promise<void>;
  /**
   * The org's members with their roles.
   * @throws {DossierError} `not_found`.
   */
  listMembers(claims: SessionClaims, orgId: string): Promise<OrgMember[]>;
  /**
   * Add an existing account to the org with a role (`{ email, role }`), or change its role.
   * @throws {DossierError} `not_found` (org or account), `invalid_input`, `conflict` (the last admin cannot be demoted).
   */
  putMember(claims: SessionClaims, orgId: string, raw: unknown): Promise<OrgMember>;
  /**
   * Remove a member: its sessions of the org end at once.
   * @throws {DossierError} `not_found`, `conflict` (the last admin cannot be removed).
   */
  removeMember(claims: SessionClaims, orgId: string, accountId: string): Promise<void>;
  /**
   * Change the caller's password (`{ currentPassword, newPassword }`); every token issued before (this one too) stops working.
   * @throws {DossierError} `unauthorized` (wrong current password), `invalid_input` (too weak).
   */
  changePassword(claims: SessionClaims, raw: unknown): Promise<void>;
  /** Revoke every token of the caller's account (log out everywhere). */
  revokeTokens(claims: SessionClaims): Promise<void>;
}
