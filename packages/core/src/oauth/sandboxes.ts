import type { AccountStore } from '../ports/account-store.ts';
import type { OAuthScope } from '../auth/principal.ts';
import type { OrgRole } from '../auth/roles.ts';
import { ENVS, type Env } from '../domain/types.ts';

/** A project sandbox a person may connect a client to, as the consent page lists it. */
export interface GrantableSandbox {
  projectId: string;
  projectName: string;
  orgName: string;
  env: Env;
  role: OrgRole;
}

/**
 * Who may grant what (a decision of issue 18; the spec is silent): any member of the project's org may grant
 * `svc:read`; `svc:full` (create, update, delete, run agentic operations) needs the admin role, as managing the
 * project's API keys does.
 */
export const scopesAllowed = (role: OrgRole, scopes: readonly OAuthScope[]): boolean => role === 'admin' || !scopes.includes('svc:full');

/** Every sandbox (live and test of each project) of every org the account belongs to, with its role there. */
export async function grantableSandboxes(store: AccountStore, accountId: string): Promise<GrantableSandbox[]> {
  const sandboxes: GrantableSandbox[] = [];
  for (const org of await store.listOrgsForAccount(accountId)) {
    const role = await store.getMembershipRole(org.id, accountId);
    if (!role) continue;
    for (const project of await store.listProjects(org.id)) {
      for (const env of ENVS) sandboxes.push({ projectId: project.id, projectName: project.name, orgName: org.name, env, role });
    }
  }
  return sandboxes;
}

/** The account's role in the project's org today (null: no longer a member, or the project is gone). */
export async function roleInProject(store: AccountStore, accountId: string, projectId: string): Promise<OrgRole | null> {
  const project = await store.getProject(projectId);
  return project ? store.getMembershipRole(project.orgId, accountId) : null;
}
