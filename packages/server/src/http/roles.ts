import { type Dossier, DossierError, type Principal } from '@dossier/core';
import type { Context } from 'koa';
import type { AnyRoute, RouteRole } from '../routes/define.ts';
import { AUTH_RULES } from './auth.ts';

/**
 * The role gate (issue 33): every route that takes a JWT declares the role a user needs (RouteDef `role`), and the
 * router checks it here for every signed-in caller, after authenticating and before the body is read, so no route
 * decides it alone and a member is refused an admin's action whatever body they send. The services check again
 * (core/src/auth/roles.ts), for callers that use the library directly. docs/access.md is the table users read.
 */

/** What a member is told when the route needs an admin. */
const ADMIN_NEEDED = 'This action needs the admin role in the org: members read and invoke, admins write (docs/access.md)';

/**
 * Refuse at startup a route whose declaration the gate could not honour: a route that takes a JWT without a role,
 * or an org role on a path without `:orgId`.
 */
export function checkRoleDeclaration(r: AnyRoute): void {
  const takesUsers = AUTH_RULES[r.auth].accepts.includes('user');
  const where = `${r.method.toUpperCase()} ${r.path}`;
  if (takesUsers && !r.role) throw new Error(`${where} accepts a JWT but declares no role (RouteDef.role)`);
  if (!takesUsers && r.role) throw new Error(`${where} declares role '${r.role}' but accepts no JWT`);
  if ((r.role === 'admin' || r.role === 'member') && !r.path.includes('/:orgId')) {
    throw new Error(`${where} needs an org role but has no :orgId in its path`);
  }
}

/** Whether the role a caller holds satisfies the role a route needs. */
const satisfies = (held: Exclude<RouteRole, 'account'>, needed: RouteRole): boolean => needed !== 'admin' || held === 'admin';

/**
 * Check the route's role for a signed-in caller: 404 outside the org of the path (nothing revealed), 403 for a member
 * on an admin route. Keys, OAuth tokens and anonymous callers hold no org role: their auth mode and sandbox bound them.
 */
export async function authorizeRole(dossier: Dossier, ctx: Context, r: AnyRoute, caller: Principal): Promise<void> {
  if (caller.kind !== 'user' || !r.role || r.role === 'account') return;
  const held = await dossier.orgs.roleIn({ accountId: caller.accountId, email: caller.email }, String(ctx.params.orgId));
  if (!satisfies(held, r.role)) throw new DossierError('forbidden', ADMIN_NEEDED);
}
