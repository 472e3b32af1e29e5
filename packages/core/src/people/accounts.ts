import type { TenancyStore } from '../ports/tenancy-store.ts';
import type { PeopleStore } from '../ports/people-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { requireOrgRole } from '../auth/roles.ts';
import { hashSecret } from '../auth/secrets.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { AccountSessionRecord, SessionMethod } from '../ports/people-store.ts';
import { parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { newLinkToken } from './invitations.ts';
import { checkPasswordStrength } from './password-policy.ts';
import { changeEmailSchema, completeResetSchema, requestResetSchema } from './schemas.ts';
import type { PeopleSettings } from './settings.ts';
import type { AccountService } from '../api/people.ts';

/** A session as its owner sees it. */
export interface SessionView {
  id: string;
  method: SessionMethod;
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
  current: boolean;
}

const sessionView = (s: AccountSessionRecord, currentId: string | null | undefined): SessionView => ({
  id: s.id,
  method: s.method,
  userAgent: s.userAgent,
  createdAt: s.createdAt,
  expiresAt: s.expiresAt,
  current: s.id === currentId,
});

/** A reset link's secret and where it goes; the plaintext exists only in this value. */
export interface IssuedReset {
  token: string;
  email: string;
  expiresAt: string;
}

/**
 * A person's own account (issue 42): e-mail change (current password required), sessions listed and ended, and
 * password reset links, issued by an admin or asked for by e-mail, each single use and expiring.
 */
export function accountService(ctx: ContextPart<never, TenancyStore & PeopleStore & AccountStore>, settings: PeopleSettings): AccountService {
  /** End every session and token of the account: a new epoch (tokens and page sessions) and every session revoked. */
  async function endAllSessions(accountId: string): Promise<void> {
    await ctx.store.setTokenEpoch(accountId, newId());
    await ctx.store.revokeAllSessions(accountId, nowIso());
  }

  async function issueReset(accountId: string, email: string, issuedBy: string | null, ttlSeconds: number): Promise<IssuedReset> {
    const token = newLinkToken();
    const createdAt = nowIso();
    const expiresAt = new Date(Date.parse(createdAt) + ttlSeconds * 1000).toISOString();
    await ctx.store.createPasswordReset({ tokenHash: hashSecret(token), accountId, issuedBy, createdAt, expiresAt, usedAt: null });
    return { token, email, expiresAt };
  }

  /** An admin may reset only a person every org of whom they administer (else they could take over another org's admin). */
  async function requireAdminOfEveryOrg(claims: SessionClaims, accountId: string): Promise<void> {
    for (const org of await ctx.store.listOrgsForAccount(accountId)) {
      if ((await ctx.store.getMembershipRole(org.id, claims.accountId)) !== 'admin') {
        throw new DossierError('forbidden', 'This person also belongs to an org you do not administer: an admin of every one of their orgs must reset it');
      }
    }
  }

  return {
    endAllSessions,
    async me(claims: SessionClaims): Promise<{ id: string; email: string }> {
      const account = await ctx.store.getAccount(claims.accountId);
      if (!account) throw new DossierError('unauthorized', 'Invalid or expired token');
      return { id: account.id, email: account.email };
    },
    async changeEmail(claims: SessionClaims, raw: unknown): Promise<{ id: string; email: string }> {
      const { email, currentPassword } = parseInput(changeEmailSchema, raw);
      const account = await ctx.store.getAccount(claims.accountId);
      if (!account || !(await verifyPassword(currentPassword, account.passwordHash))) throw new DossierError('unauthorized', 'The current password is wrong');
      await ctx.store.setAccountEmail(account.id, email);
      return { id: account.id, email };
    },
    async listSessions(claims: SessionClaims): Promise<SessionView[]> {
      return (await ctx.store.listSessions(claims.accountId, nowIso())).map((s) => sessionView(s, claims.sessionId));
    },
    async endSession(claims: SessionClaims, sessionId: string): Promise<void> {
      if (!isUuid(sessionId) || !(await ctx.store.revokeSession(claims.accountId, sessionId, nowIso()))) {
        throw new DossierError('not_found', 'No live session of yours with this id');
      }
    },
    /** An admin's reset link for a member of their org. */
    async adminReset(claims: SessionClaims, orgId: string, accountId: string): Promise<IssuedReset> {
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Resetting passwords');
      const account = isUuid(accountId) && (await ctx.store.getMembershipRole(orgId, accountId)) ? await ctx.store.getAccount(accountId) : null;
      if (!account) throw new DossierError('not_found', 'Member not found');
      await requireAdminOfEveryOrg(claims, account.id);
      return issueReset(account.id, account.email, claims.accountId, settings.adminResetTtlSeconds);
    },
    /** A link for the person who asked, or null for an unknown e-mail (the caller answers the same either way). */
    async requestReset(raw: unknown): Promise<IssuedReset | null> {
      const { email } = parseInput(requestResetSchema, raw);
      const account = await ctx.store.findAccountByEmail(email);
      return account ? issueReset(account.id, account.email, null, settings.emailResetTtlSeconds) : null;
    },
    /** Set the new password with a reset link (once); every session and token of the account ends. */
    async completeReset(raw: unknown): Promise<void> {
      const { token, newPassword } = parseInput(completeResetSchema, raw);
      checkPasswordStrength(newPassword, '');
      const reset = await ctx.store.consumePasswordReset(hashSecret(token), nowIso());
      if (!reset) throw new DossierError('not_found', 'This reset link is not valid: it was used or has expired. Ask for a new one.');
      await ctx.store.setPasswordHash(reset.accountId, await hashPassword(newPassword));
      await endAllSessions(reset.accountId);
    },
  };
}

export type { AccountService };
