import type { SessionClaims } from '../auth/jwt.ts';
import type { DossierContext } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Project } from '../domain/types.ts';
import { isUuid } from '../util/ids.ts';

/** The role a management-plane call needs in the project's org. */
export type ProjectRole = 'admin' | 'member';

/**
 * The one place hosted agents decide who may act on a project (moves to the principal of the access issue
 * once it lands). Non-members and unknown ids get 404, so ids of other orgs leak nothing; a member who is not
 * an admin gets 403 for admin actions.
 */
export async function requireProjectRole(
  ctx: DossierContext,
  claims: SessionClaims,
  target: { orgId: string; projectId: string },
  needed: ProjectRole,
): Promise<Project> {
  const role = isUuid(target.orgId) ? await ctx.store.getMembershipRole(target.orgId, claims.accountId) : null;
  if (!role) throw notFound('Org');
  const project = isUuid(target.projectId) ? await ctx.store.getProject(target.projectId) : null;
  if (!project || project.orgId !== target.orgId) throw notFound('Project');
  if (needed === 'admin' && role !== 'admin') throw new DossierError('forbidden', 'Managing agents needs the admin role on the project');
  return project;
}
