import type { PeopleStore } from '../ports/people-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import type { TenancyStore } from '../ports/tenancy-store.ts';
import { randomBytes } from 'node:crypto';
import type { SessionClaims } from '../auth/jwt.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { requireOrgRole } from '../auth/roles.ts';
import { hashSecret } from '../auth/secrets.ts';
import type { AuthService, SignInMeta, SignedIn } from '../auth/service.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { Account } from '../domain/types.ts';
import type { InvitationRecord, MemberRole } from '../ports/people-store.ts';
import { parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { checkPasswordStrength } from './password-policy.ts';
import { acceptInvitationSchema, inviteSchema } from './schemas.ts';
import type { PeopleSettings } from './settings.ts';
import type { InvitationService } from '../api/people.ts';

/** An invitation as admins see it (never its token or hash). */
export interface InvitationView {
  id: string;
  orgId: string;
  email: string;
  role: MemberRole;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
}

export const invitationView = (i: InvitationRecord): InvitationView => ({
  id: i.id,
  orgId: i.orgId,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedBy,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
});

/** A new link secret: 32 random bytes, base64url. */
export const newLinkToken = (): string => randomBytes(32).toString('base64url');

/** One answer for every unusable link, so a link tells nothing about why. */
const unusable = () => new DossierError('not_found', 'This invitation link is not valid: it was used, revoked, or has expired. Ask an admin for a new one.');

/** Admins of a role keep it when an invitation would lower it. */
const strongerRole = (a: MemberRole | null, b: MemberRole): MemberRole => (a === 'admin' ? 'admin' : b);

/**
 * Invitations (issue 42): an org admin invites an e-mail with a role and gets a one-time link (its secret stored only
 * as a hash, expiring, revocable); opening it and setting a password (or giving the existing account's) makes the
 * person a member and signs them in.
 */
export function invitationService(
  ctx: ContextPart<never, PeopleStore & AccountStore & TenancyStore>,
  auth: AuthService,
  settings: PeopleSettings,
): InvitationService {
  async function pendingByToken(token: string): Promise<InvitationRecord> {
    const invitation = await ctx.store.findInvitationByTokenHash(hashSecret(token));
    if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= nowIso()) throw unusable();
    return invitation;
  }

  /** The account the invitation is for: the existing one (its password checked) or a new one with the password. */
  async function accountFor(invitation: InvitationRecord, password: string): Promise<{ account: Account; created: boolean }> {
    const existing = await ctx.store.findAccountByEmail(invitation.email);
    if (existing) {
      if (!(await verifyPassword(password, existing.passwordHash)))
        throw new DossierError('unauthorized', 'This e-mail already has an account: give its password to accept');
      return { account: existing, created: false };
    }
    checkPasswordStrength(password, invitation.email);
    return { account: { id: newId(), email: invitation.email, passwordHash: await hashPassword(password), createdAt: nowIso() }, created: true };
  }

  return {
    async invite(claims: SessionClaims, orgId: string, raw: unknown): Promise<{ invitation: InvitationView; token: string; sendEmail: boolean }> {
      const { email, role, sendEmail } = parseInput(inviteSchema, raw);
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Inviting people');
      const existing = await ctx.store.findAccountByEmail(email);
      if (existing && (await ctx.store.getMembershipRole(orgId, existing.id))) throw new DossierError('conflict', `${email} is already a member of this org`);
      const now = nowIso();
      // A new link replaces the pending ones to the same e-mail: only the latest one works.
      for (const earlier of await ctx.store.listPendingInvitationsForEmail(email, now)) {
        if (earlier.orgId === orgId) await ctx.store.revokeInvitation(earlier.id, now);
      }
      const token = newLinkToken();
      const record: InvitationRecord = {
        id: newId(),
        orgId,
        email,
        role,
        tokenHash: hashSecret(token),
        invitedBy: claims.accountId,
        createdAt: now,
        expiresAt: new Date(Date.parse(now) + settings.invitationTtlSeconds * 1000).toISOString(),
        acceptedAt: null,
        revokedAt: null,
      };
      await ctx.store.createInvitation(record);
      return { invitation: invitationView(record), token, sendEmail };
    },
    async list(claims: SessionClaims, orgId: string): Promise<InvitationView[]> {
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Listing invitations');
      return (await ctx.store.listPendingInvitations(orgId, nowIso())).map(invitationView);
    },
    async revoke(claims: SessionClaims, orgId: string, invitationId: string): Promise<void> {
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Revoking invitations');
      const invitation = isUuid(invitationId) ? await ctx.store.getInvitation(invitationId) : null;
      if (!invitation || invitation.orgId !== orgId || !(await ctx.store.revokeInvitation(invitation.id, nowIso()))) {
        throw new DossierError('not_found', 'No pending invitation with this id in the org');
      }
    },
    /** What the link's page shows before the invitee accepts. */
    async preview(token: string) {
      const invitation = await pendingByToken(token);
      const org = await ctx.store.getOrg(invitation.orgId);
      const hasAccount = (await ctx.store.findAccountByEmail(invitation.email)) !== null;
      return { orgName: org?.name ?? 'an org', email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt, hasAccount };
    },
    /** Accept: the account is created (or the existing one's password checked), made a member, and signed in. */
    async accept(raw: unknown, meta: SignInMeta = {}): Promise<SignedIn & { orgId: string; role: MemberRole }> {
      const { token, password } = parseInput(acceptInvitationSchema, raw);
      const invitation = await pendingByToken(token);
      const { account, created } = await accountFor(invitation, password);
      if (!(await ctx.store.acceptInvitation(invitation.id, nowIso()))) throw unusable();
      if (created) await ctx.store.createAccount(account);
      const role = strongerRole(await ctx.store.getMembershipRole(invitation.orgId, account.id), invitation.role);
      await ctx.store.setMembership(invitation.orgId, account.id, role);
      const signedIn = await auth.startSession(account, 'invitation', meta);
      return { ...signedIn, orgId: invitation.orgId, role };
    },
    /** Accept every pending invitation to a verified e-mail (single sign-on's first sign-in of an invited person). */
    async acceptAllFor(account: { id: string; email: string }): Promise<number> {
      let accepted = 0;
      for (const invitation of await ctx.store.listPendingInvitationsForEmail(account.email, nowIso())) {
        if (!(await ctx.store.acceptInvitation(invitation.id, nowIso()))) continue;
        await ctx.store.setMembership(
          invitation.orgId,
          account.id,
          strongerRole(await ctx.store.getMembershipRole(invitation.orgId, account.id), invitation.role),
        );
        accepted++;
      }
      return accepted;
    },
  };
}

export type { InvitationService };
