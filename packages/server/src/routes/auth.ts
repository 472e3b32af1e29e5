import { schemas } from '@dossier/core';
import { requireSession } from '../http/auth.ts';
import { type RouteDef, type RouteDeps, send } from './define.ts';

/** Management plane: login, orgs, projects. Served at /auth/... and /orgs/... and under /v1 too. */
export function authRoutes({ dossier, limits }: RouteDeps): RouteDef[] {
  const a = dossier.auth;
  return ['', '/v1'].flatMap((prefix): RouteDef[] => [
    {
      method: 'post', path: `${prefix}/auth/login`, tag: 'auth', auth: 'none', summary: 'Exchange e-mail and password for a JWT (1 hour)',
      body: schemas.loginSchema, responses: { 200: '{token, user: {id, email}}', 401: 'Invalid credentials', 429: 'Too many failed logins for the account or from the address' },
      handle: async (ctx, { body }) => {
        const { email } = body as { email: string };
        send(ctx, 200, await limits.login(ctx.ip, email, () => a.login(body)));
      },
    },
    {
      method: 'get', path: `${prefix}/orgs`, tag: 'auth', auth: 'jwt', summary: 'Orgs of the account', responses: { 200: 'array of Org' },
      handle: async (ctx) => send(ctx, 200, await a.listOrgs(requireSession(ctx))),
    },
    {
      method: 'get', path: `${prefix}/orgs/:orgId/projects`, tag: 'auth', auth: 'jwt', summary: 'Projects of an org',
      responses: { 200: 'array of Project', 404: 'Not a member' },
      handle: async (ctx) => send(ctx, 200, await a.listProjects(requireSession(ctx), ctx.params.orgId)),
    },
  ]);
}
