import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type Dossier, DossierError, type Env, type Principal, type SessionClaims } from '@dossier/core';
import type { Context } from 'koa';

/**
 * The dashboard's session (issue 34): the JWT of a login kept in an httpOnly, SameSite=Strict cookie, so page
 * scripts never see a token and other sites' pages never send it. Writes made with it must also carry the CSRF
 * token (double submit: the `X-Dossier-CSRF` header equals the CSRF cookie, which only this origin's pages learn,
 * from the session routes). On data-plane routes the session acts in the project sandbox named by the
 * `X-Dossier-Project` and `X-Dossier-Env` headers, for members of the project's org only.
 */

export const SESSION_COOKIE = 'dossier_session';
export const CSRF_COOKIE = 'dossier_csrf';
export const CSRF_HEADER = 'x-dossier-csrf';
export const PROJECT_HEADER = 'x-dossier-project';
export const ENV_HEADER = 'x-dossier-env';

/** The session lives as long as the JWT inside it (1 hour), renewed while in use (renewIfOld). */
const SESSION_MAX_AGE_MS = 3600_000;

/** Methods that change nothing: they need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session cookie's value in a raw Cookie header (the rate limiter reads it before Koa does). */
export function sessionCookieOf(cookieHeader: string | undefined): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE && value.length) return value.join('=') || null;
  }
  return null;
}

/** The request's session cookie, if any. */
export function sessionCookie(ctx: Context): string | null {
  return sessionCookieOf(ctx.get('cookie'));
}

const cookieOptions = (ctx: Context) => ({ httpOnly: true, sameSite: 'strict' as const, secure: ctx.secure, path: '/', overwrite: true });

/** Start a session: the token in the session cookie and a fresh CSRF token, which is returned for the page. */
export function startSession(ctx: Context, token: string): string {
  const csrf = randomBytes(24).toString('base64url');
  ctx.cookies.set(SESSION_COOKIE, token, { ...cookieOptions(ctx), maxAge: SESSION_MAX_AGE_MS });
  ctx.cookies.set(CSRF_COOKIE, csrf, { ...cookieOptions(ctx), maxAge: SESSION_MAX_AGE_MS });
  return csrf;
}

/**
 * Sliding renewal: past half its life the session's token is replaced (see auth.renewToken), and both cookies start
 * another hour, the CSRF token unchanged (the page keeps it), so a dashboard in use stays signed in.
 */
async function renewIfOld(dossier: Dossier, ctx: Context, claims: SessionClaims): Promise<void> {
  const token = await dossier.auth.renewToken(claims);
  if (!token) return;
  ctx.cookies.set(SESSION_COOKIE, token, { ...cookieOptions(ctx), maxAge: SESSION_MAX_AGE_MS });
  const csrf = csrfTokenOf(ctx);
  if (csrf) ctx.cookies.set(CSRF_COOKIE, csrf, { ...cookieOptions(ctx), maxAge: SESSION_MAX_AGE_MS });
}

/** End the session in this browser: both cookies expire. */
export function endSession(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx), maxAge: 0 });
  ctx.cookies.set(CSRF_COOKIE, '', { ...cookieOptions(ctx), maxAge: 0 });
}

/** The CSRF token of the request's session (its cookie), for the page to send back on writes. */
export function csrfTokenOf(ctx: Context): string | null {
  return ctx.cookies.get(CSRF_COOKIE) || null;
}

/** Refuse (403) a write whose CSRF header does not match the session's CSRF cookie. */
function checkCsrf(ctx: Context): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const expected = Buffer.from(csrfTokenOf(ctx) ?? '');
  const given = Buffer.from(ctx.get(CSRF_HEADER));
  if (expected.length === 0 || expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new DossierError('forbidden', `A write with the dashboard session needs the ${CSRF_HEADER} header of the session`);
  }
}

/** The sandbox the request names, or null when it names none. */
function namedSandbox(ctx: Context): { projectId: string; env: Env } | null {
  const projectId = ctx.get(PROJECT_HEADER);
  if (!projectId) return null;
  const env = ctx.get(ENV_HEADER);
  if (env !== 'live' && env !== 'test') throw new DossierError('invalid_input', `${ENV_HEADER} must be "live" or "test"`);
  return { projectId, env };
}

/**
 * The caller of a request authenticated by the session cookie, as the route's accepted kinds allow: the person
 * (management routes), or the project sandbox the headers name (data-plane routes; membership checked). Null when
 * the route takes neither (the caller is then anonymous). Invalid or revoked sessions are 401; writes without the
 * CSRF token 403.
 */
export async function sessionPrincipal(dossier: Dossier, ctx: Context, token: string, accepts: readonly Principal['kind'][]): Promise<Principal | null> {
  const claims = await dossier.auth.verifyToken(token);
  checkCsrf(ctx);
  await renewIfOld(dossier, ctx, claims);
  if (accepts.includes('user')) return { kind: 'user', accountId: claims.accountId, email: claims.email };
  const named = accepts.includes('project_key') ? namedSandbox(ctx) : null;
  if (!named) return null;
  const sandbox = await dossier.auth.sessionSandbox(claims, named.projectId, named.env);
  ctx.state.sessionCookie = true;
  return { kind: 'project_key', projectId: sandbox.projectId, env: sandbox.env, keyId: `session:${claims.accountId}` };
}

/** Whether the request's caller came from the dashboard's session cookie (no API key behind it to re-check). */
export function fromSessionCookie(ctx: Context): boolean {
  return ctx.state.sessionCookie === true;
}
