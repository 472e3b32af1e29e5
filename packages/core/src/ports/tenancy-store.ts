import type { Account, Org, Project } from '../domain/types.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** A member of an org as the management plane lists them. */
export type OrgMember = z.output<typeof responses.orgMember>;

/**
 * The management plane's part of the MetadataStore (issue 9): accounts, orgs, projects and memberships beyond
 * their creation (AccountStore and KeyStore). People on a team (issue 42) are their own store, people-store.ts.
 */
export interface TenancyStore {
  getAccount(id: string): Promise<Account | null>;
  /** Replace the account's password hash. */
  setPasswordHash(accountId: string, passwordHash: string): Promise<void>;
  /** The account's token epoch: tokens carry it, and only those of the current epoch are accepted (null: none set yet). */
  getTokenEpoch(accountId: string): Promise<string | null>;
  /** Start a new epoch: every token issued before stops working. */
  setTokenEpoch(accountId: string, epoch: string): Promise<void>;
  getOrg(id: string): Promise<Org | null>;
  renameOrg(id: string, name: string): Promise<Org | null>;
  /** Delete an org with its memberships, projects and their keys (callers make sure the projects hold no data). */
  deleteOrg(id: string): Promise<void>;
  renameProject(id: string, name: string): Promise<Project | null>;
  /** Delete a project with its keys (callers make sure it holds no collections). */
  deleteProject(id: string): Promise<void>;
  /** Members of an org with their emails, oldest account first. */
  listMembers(orgId: string): Promise<OrgMember[]>;
  removeMembership(orgId: string, accountId: string): Promise<void>;
}
