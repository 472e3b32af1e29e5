import { responses, schemas } from '@dossier/core';
import { type RouteDef, type RouteDeps, route } from './define.ts';
import { requirePasswordSignIn } from './people.ts';

/** Management plane: login, orgs, projects. Served at /auth/... and /orgs/... and under /v1 too. */
export function authRoutes(deps: RouteDeps): RouteDef[] {
  const { dossier, limits } = deps;
  const a = dossier.auth;
  // The unversioned paths are aliases of the /v1 ones: their operations carry an `Unversioned` suffix.
  return ['', '/v1'].flatMap((prefix): RouteDef[] => {
    const alias = prefix ? '' : 'Unversioned';
    return [
      route({
        method: 'post',
        path: `${prefix}/auth/login`,
        operationId: `login${alias}`,
        tag: 'auth',
        auth: 'none',
        summary: 'Exchange e-mail and password for a JWT (1 hour)',
        body: schemas.loginSchema,
        responses: {
          200: { description: 'A JWT and the account', schema: responses.login },
          401: 'Invalid credentials',
          403: 'Password sign-in is turned off (single sign-on only)',
          429: 'Too many failed logins for the account or from the address',
        },
        handle: async (ctx, { body, reply }) => {
          requirePasswordSignIn(deps);
          reply(200, await limits.login(ctx.ip, body.email, () => a.login(body, { userAgent: ctx.get('user-agent') || null })));
        },
      }),
      route({
        method: 'get',
        path: `${prefix}/orgs`,
        operationId: `listOrgs${alias}`,
        tag: 'auth',
        auth: 'jwt',
        role: 'account',
        summary: 'Orgs of the account',
        responses: { 200: { description: 'The orgs', schema: responses.org.array() } },
        handle: async (_ctx, { caller, reply }) => reply(200, await a.listOrgs(caller)),
      }),
      route({
        method: 'get',
        path: `${prefix}/orgs/:orgId/projects`,
        operationId: `listProjects${alias}`,
        tag: 'auth',
        auth: 'jwt',
        role: 'member',
        summary: 'Projects of an org',
        responses: { 200: { description: 'The projects', schema: responses.project.array() }, 404: 'Not a member' },
        handle: async (ctx, { caller, reply }) => reply(200, await a.listProjects(caller, ctx.params.orgId)),
      }),
    ];
  });
}
