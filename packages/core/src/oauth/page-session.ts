import { createTokenIssuer, type SessionClaims } from '../auth/jwt.ts';
import type { DossierContext } from '../context.ts';
import { DossierError } from '../domain/errors.ts';

/**
 * The login of the server-rendered pages (consent, connected clients) lasts from one form to the next: a short JWT
 * carried in a hidden field, never a cookie, so another site cannot make a browser submit the forms (no CSRF), and
 * signed with its own key, so it is not a management-plane token. "Log out everywhere" ends it like any token.
 */
export function pageSessions(ctx: DossierContext, ttlSeconds: number) {
  const issuer = createTokenIssuer(ctx.secrets.deriveKey('oauth-page-session'), ttlSeconds);
  return {
    issue: (claims: SessionClaims): Promise<string> => issuer.issue(claims),
    /** The account of a page session; unauthorized when expired, forged or from before a "log out everywhere". */
    async verify(session: string): Promise<SessionClaims> {
      const claims = await issuer.verify(session);
      const epoch = (await ctx.store.getAccount(claims.accountId)) ? await ctx.store.getTokenEpoch(claims.accountId) : undefined;
      if (epoch === undefined || (epoch ?? null) !== (claims.epoch ?? null)) throw new DossierError('unauthorized', 'Your sign-in has expired: sign in again');
      return claims;
    },
  };
}
