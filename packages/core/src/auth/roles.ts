import type { AccountStore } from '../ports/account-store.ts';
import type { ContextPart } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Project } from '../domain/types.ts';
import { isUuid } from '../util/ids.ts';
import type { SessionClaims } from './jwt.ts';
import type { ORG_ROLES } from '../vocabulary.ts';

/** The role a management-plane call needs in an org. */
export type OrgRole = (typeof ORG_ROLES)[number];

/**
 * The one place the management plane decides who may act on an org (issue 9). Non-members and unknown ids get 404,
 * so ids of other orgs leak nothing; a member who is not an admin gets 403 for admin actions.
 */
export async function requireOrgRole(store: AccountStore, claims: SessionClaims, orgId: string, needed: OrgRole, what = 'This'): Promise<OrgRole> {
  const role = isUuid(orgId) ? await store.getMembershipRole(orgId, claims.accountId) : null;
  if (!role) throw notFound('Org');
  if (needed === 'admin' && role !== 'admin') throw new DossierError('forbidden', `${what} needs the admin role in the org`);
  return role;
}

/** The project of the path when the caller has the role in its org (404 for other orgs' projects). */
export async function requireProjectRole(
  ctx: ContextPart<never, AccountStore>,
  claims: SessionClaims,
  target: { orgId: string; projectId: string },
  needed: OrgRole,
  what = 'Managing agents',
): Promise<Project> {
  await requireOrgRole(ctx.store, claims, target.orgId, needed === 'admin' ? 'member' : needed);
  const project = isUuid(target.projectId) ? await ctx.store.getProject(target.projectId) : null;
  if (!project || project.orgId !== target.orgId) throw notFound('Project');
  await requireOrgRole(ctx.store, claims, target.orgId, needed, what);
  return project;
}
