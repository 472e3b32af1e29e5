import { DossierError, schemas } from '@dossier/core';
import type { Context } from 'koa';
import { z } from 'zod';
import { csrfTokenOf, endSession, startSession } from '../http/session-cookie.ts';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';
import { requirePasswordSignIn } from './people.ts';

/** What the dashboard learns about its session: who is signed in, and the CSRF token its writes must carry. */
const dashboardSession = z.object({
  user: z.object({ id: z.string(), email: z.string() }),
  csrfToken: z.string().nullable().describe('Send it as X-Dossier-CSRF on every write made with the session cookie (null: no session cookie)'),
});

/**
 * Refuse a sign-in another site's page sends (login CSRF: signing the victim in to the attacker's account). Browsers
 * name the page's origin in `Origin` on every cross-origin POST; it must be this server's own.
 */
function refuseOtherOrigins(ctx: Context): void {
  const origin = ctx.get('origin');
  if (!origin) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    host = '';
  }
  if (host !== ctx.host) throw new DossierError('forbidden', 'Sign in from the dashboard of this server');
}

/**
 * The dashboard's cookie session (issue 34): sign in (the login's JWT goes into an httpOnly, SameSite=Strict
 * cookie, never to page scripts), read the session back after a reload, sign out in this browser. "Sign out
 * everywhere" is POST /v1/auth/logout-all, which the cookie session may call like a JWT.
 */
export function dashboardRoutes(deps: RouteDeps): RouteDef[] {
  const { dossier, limits } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/dashboard/session',
      operationId: 'startDashboardSession',
      tag: 'auth',
      auth: 'none',
      body: schemas.loginSchema,
      summary: 'Sign in to the dashboard: sets the httpOnly session cookie (1 hour, renewed while in use) and returns the CSRF token for writes',
      responses: {
        200: { description: 'Signed in', schema: dashboardSession },
        400: 'Invalid input',
        401: 'Invalid credentials',
        403: 'Sent from another origin, or password sign-in is off (single sign-on only)',
        429: 'Too many failed logins',
      },
      handle: async (ctx, { body, reply }) => {
        refuseOtherOrigins(ctx);
        requirePasswordSignIn(deps);
        const { token, user } = await limits.login(ctx.ip, body.email, () => dossier.auth.login(body));
        reply(200, { user, csrfToken: startSession(ctx, token) });
      },
    }),
    route({
      method: 'get',
      path: '/v1/dashboard/session',
      operationId: 'getDashboardSession',
      tag: 'auth',
      auth: 'jwt',
      role: 'account',
      summary: 'The signed-in person and the CSRF token of the session cookie (after a reload)',
      responses: { 200: { description: 'The session', schema: dashboardSession }, 401: 'Not signed in, or the session expired' },
      handle: async (ctx, { caller: session, reply }) => {
        reply(200, { user: { id: session.accountId, email: session.email }, csrfToken: csrfTokenOf(ctx) });
      },
    }),
    route({
      method: 'delete',
      path: '/v1/dashboard/session',
      operationId: 'endDashboardSession',
      tag: 'auth',
      auth: 'none',
      summary: 'Sign out of the dashboard in this browser (the cookies expire); POST /v1/auth/logout-all ends every session',
      responses: { 204: 'Signed out' },
      handle: async (ctx) => {
        endSession(ctx);
        noContent(ctx);
      },
    }),
  ];
}
