import type { TenancyStore } from '../ports/tenancy-store.ts';
import { createTokenIssuer, type SessionClaims } from '../auth/jwt.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';

/** What a page session opens: the consent form of one client, or the connected-clients page's forms. */
export type PagePurpose = { page: 'consent'; clientId: string } | { page: 'connections' };

const purposeLabel = (purpose: PagePurpose): string =>
  purpose.page === 'consent' ? `oauth-page-session:consent:${purpose.clientId}` : 'oauth-page-session:connections';

/**
 * The login of the server-rendered pages (consent, connected clients) lasts from one form to the next: a short JWT
 * carried in a hidden field, never a cookie, so another site cannot make a browser submit the forms (no CSRF), and
 * signed with its own key, so it is not a management-plane token. "Log out everywhere" ends it like any token.
 * Each purpose has its own key (issue 33): a session issued on one client's consent page opens neither another
 * client's consent nor the connected-clients forms, and the reverse.
 */
export function pageSessions(ctx: ContextPart<'secrets', TenancyStore>, ttlSeconds: number) {
  const issuerFor = (purpose: PagePurpose) => createTokenIssuer(ctx.secrets.deriveKey(purposeLabel(purpose)), ttlSeconds);
  return {
    issue: (claims: SessionClaims, purpose: PagePurpose): Promise<string> => issuerFor(purpose).issue(claims),
    /** The account of a page session of this purpose; unauthorized when expired, forged, of another purpose or from before a "log out everywhere". */
    async verify(session: string, purpose: PagePurpose): Promise<SessionClaims> {
      const claims = await issuerFor(purpose).verify(session);
      const epoch = (await ctx.store.getAccount(claims.accountId)) ? await ctx.store.getTokenEpoch(claims.accountId) : undefined;
      if (epoch === undefined || (epoch ?? null) !== (claims.epoch ?? null)) throw new DossierError('unauthorized', 'Your sign-in has expired: sign in again');
      return claims;
    },
  };
}
