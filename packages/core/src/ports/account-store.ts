import type { Account, Org, Project } from '../domain/types.ts';
import type { MemberRole } from './people-store.ts';

/** Creating the management plane's records (part of the MetadataStore): accounts, orgs, memberships and projects. */
export interface AccountStore {
  /** Insert an account (email is unique, compared case-insensitively). */
  createAccount(account: Account): Promise<void>;
  /** Find an account by email, case-insensitively. */
  findAccountByEmail(email: string): Promise<Account | null>;
  /** Insert an org and make the account a member with the given role. */
  createOrg(org: Org, ownerAccountId: string, role: MemberRole): Promise<void>;
  /** Orgs the account belongs to, oldest first. */
  listOrgsForAccount(accountId: string): Promise<Org[]>;
  /** Make the account a member of the org with the role, or change its role. */
  setMembership(orgId: string, accountId: string, role: MemberRole): Promise<void>;
  /** The account's role in the org, or null when not a member. */
  getMembershipRole(orgId: string, accountId: string): Promise<MemberRole | null>;
  /** Insert a project. */
  createProject(project: Project): Promise<void>;
  /** A project by id. */
  getProject(id: string): Promise<Project | null>;
  /** Projects of an org, oldest first. */
  listProjects(orgId: string): Promise<Project[]>;
}
