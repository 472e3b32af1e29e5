import { type Access, type DossierCore, DossierError, envOfApiKey, type SessionClaims, type WebhookCaller } from '@dossier/core';
import type { Context } from 'koa';

const bearer = (ctx: Context): string | null => {
  const h = ctx.get('authorization');
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (h && !m) throw new DossierError('unauthorized', 'Authorization header must be "Bearer <key>"');
  return m?.[1] ?? null;
};

/** The caller's sandbox from an API key (Bearer, or `?key=` when allowed); null when no key was sent. */
export async function apiAccess(dossier: DossierCore, ctx: Context, allowQueryKey = false): Promise<Access> {
  const key = bearer(ctx) ?? (allowQueryKey && typeof ctx.query.key === 'string' ? ctx.query.key : null);
  if (!key) return null;
  const { keyId, ...access } = await dossier.auth.authenticateKey(key);
  ctx.state.keyId = keyId; // for the access log line (an id, never the key)
  return access;
}

/** Like apiAccess, but a key is required. */
export async function requireApiAccess(dossier: DossierCore, ctx: Context): Promise<NonNullable<Access>> {
  const access = await apiAccess(dossier, ctx);
  if (!access) throw new DossierError('unauthorized', 'An API key is required (Authorization: Bearer <key>)');
  return access;
}

/** The management-plane session from a JWT Bearer token. */
export async function requireSession(dossier: DossierCore, ctx: Context): Promise<SessionClaims> {
  const token = bearer(ctx);
  if (!token) throw new DossierError('unauthorized', 'A token from POST /auth/login is required (Authorization: Bearer <token>)');
  return dossier.auth.verifyToken(token);
}

/** A management-plane caller: a JWT from POST /auth/login, or the project's API key (spec: webhook routes accept both). */
export async function requireSessionOrKey(dossier: DossierCore, ctx: Context): Promise<WebhookCaller> {
  const token = bearer(ctx);
  if (!token) throw new DossierError('unauthorized', 'A token from POST /auth/login or a project API key is required (Authorization: Bearer <token>)');
  if (envOfApiKey(token)) return { access: await dossier.auth.authenticateKey(token) };
  return { session: await dossier.auth.verifyToken(token) };
}
