import { schemas } from '@dossier/core';
import { z } from 'zod';
import { requireSession } from '../http/auth.ts';
import { csrfTokenOf, endSession, startSession } from '../http/session-cookie.ts';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

/** What the dashboard learns about its session: who is signed in, and the CSRF token its writes must carry. */
const dashboardSession = z.object({
  user: z.object({ id: z.string(), email: z.string() }),
  csrfToken: z.string().nullable().describe('Send it as X-Dossier-CSRF on every write made with the session cookie (null: no session cookie)'),
});

/**
 * The dashboard's cookie session (issue 34): sign in (the login's JWT goes into an httpOnly, SameSite=Strict
 * cookie, never to page scripts), read the session back after a reload, sign out in this browser. "Sign out
 * everywhere" is POST /v1/auth/logout-all, which the cookie session may call like a JWT.
 */
export function dashboardRoutes({ dossier, limits }: RouteDeps): RouteDef[] {
  return [
    route({
      method: 'post', path: '/v1/dashboard/session', operationId: 'startDashboardSession', tag: 'auth', auth: 'none', body: schemas.loginSchema,
      summary: 'Sign in to the dashboard: sets the httpOnly session cookie (1 hour) and returns the CSRF token for writes',
      responses: { 200: { description: 'Signed in', schema: dashboardSession }, 400: 'Invalid input', 401: 'Invalid credentials', 429: 'Too many failed logins' },
      handle: async (ctx, { body, reply }) => {
        const { token, user } = await limits.login(ctx.ip, body.email, () => dossier.auth.login(body));
        reply(200, { user, csrfToken: startSession(ctx, token) });
      },
    }),
    route({
      method: 'get', path: '/v1/dashboard/session', operationId: 'getDashboardSession', tag: 'auth', auth: 'jwt', role: 'account',
      summary: 'The signed-in person and the CSRF token of the session cookie (after a reload)',
      responses: { 200: { description: 'The session', schema: dashboardSession }, 401: 'Not signed in, or the session expired' },
      handle: async (ctx, { reply }) => {
        const session = requireSession(ctx);
        reply(200, { user: { id: session.accountId, email: session.email }, csrfToken: csrfTokenOf(ctx) });
      },
    }),
    route({
      method: 'delete', path: '/v1/dashboard/session', operationId: 'endDashboardSession', tag: 'auth', auth: 'none',
      summary: 'Sign out of the dashboard in this browser (the cookies expire); POST /v1/auth/logout-all ends every session',
      responses: { 204: 'Signed out' },
      handle: async (ctx) => {
        endSession(ctx);
        noContent(ctx);
      },
    }),
  ];
}
