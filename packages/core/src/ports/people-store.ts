import type { ORG_ROLES } from '../vocabulary.ts';
/** The role an org member has. */
export type MemberRole = (typeof ORG_ROLES)[number];

/** An invitation to an org (issue 42): its link's secret is stored only as a sha256 hash. */
export interface InvitationRecord {
  id: string;
  orgId: string;
  email: string;
  role: MemberRole;
  tokenHash: string;
  /** The admin who invited (null when that account is gone). */
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  revokedAt: string | null;
}

/** How a session began. */
export type SessionMethod = 'password' | 'sso' | 'invitation' | 'reset';

/** A signed-in session: management-plane JWTs name it (`sid`), and it is checked on every request. */
export interface AccountSessionRecord {
  id: string;
  accountId: string;
  method: SessionMethod;
  /** The sign-in's User-Agent, cut to 200 characters, so a person can tell their sessions apart. */
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

/** A one-time password reset link (stored by hash). */
export interface PasswordResetRecord {
  tokenHash: string;
  accountId: string;
  /** The admin who issued it, or null when the person asked for it by e-mail. */
  issuedBy: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** A single sign-on attempt between the redirect to the identity provider and its callback (state stored by hash). */
export interface SsoLoginRecord {
  stateHash: string;
  providerId: string;
  codeVerifier: string;
  nonce: string;
  /** JSON of what to resume after sign-in (the OAuth authorization request of the consent page), or null. */
  context: string | null;
  createdAt: string;
  expiresAt: string;
}

/** People on a team (issue 42; part of the MetadataStore): invitations, sessions, reset links, SSO identities. */
export interface PeopleStore {
  createInvitation(invitation: InvitationRecord): Promise<void>;
  getInvitation(id: string): Promise<InvitationRecord | null>;
  findInvitationByTokenHash(tokenHash: string): Promise<InvitationRecord | null>;
  /** Invitations of the org neither accepted, revoked nor expired at `now`, newest first. */
  listPendingInvitations(orgId: string, now: string): Promise<InvitationRecord[]>;
  /** Pending invitations (any org) to an e-mail at `now`, compared case-insensitively. */
  listPendingInvitationsForEmail(email: string, now: string): Promise<InvitationRecord[]>;
  /** Revoke a pending invitation; false when it was not pending (accepted, revoked already, or unknown). */
  revokeInvitation(id: string, at: string): Promise<boolean>;
  /** Mark a pending, unexpired invitation accepted: true exactly once (the link is single use). */
  acceptInvitation(id: string, at: string): Promise<boolean>;

  createSession(session: AccountSessionRecord): Promise<void>;
  getSession(id: string): Promise<AccountSessionRecord | null>;
  /** Sessions of the account neither revoked nor expired at `now`, newest first. */
  listSessions(accountId: string, now: string): Promise<AccountSessionRecord[]>;
  /** Revoke one session of the account; false when it is not the account's or was revoked already. */
  revokeSession(accountId: string, id: string, at: string): Promise<boolean>;
  /** Move a live (unrevoked, unexpired at `now`) session's expiry to `expiresAt` (sliding renewal); false otherwise. */
  extendSession(id: string, expiresAt: string, now: string): Promise<boolean>;
  /** Revoke every session of the account. */
  revokeAllSessions(accountId: string, at: string): Promise<void>;

  createPasswordReset(reset: PasswordResetRecord): Promise<void>;
  /** Spend an unused, unexpired reset link: the record exactly once, null otherwise. */
  consumePasswordReset(tokenHash: string, at: string): Promise<PasswordResetRecord | null>;

  /** Change the account's e-mail (conflict when another account has it). */
  setAccountEmail(accountId: string, email: string): Promise<void>;
  /** The account linked to an identity provider's subject, or null. */
  findAccountIdBySsoIdentity(issuer: string, subject: string): Promise<string | null>;
  linkSsoIdentity(issuer: string, subject: string, accountId: string, at: string): Promise<void>;
  createSsoLogin(login: SsoLoginRecord): Promise<void>;
  /** Take (delete) an unexpired SSO attempt by its state hash: the record exactly once, null otherwise. */
  takeSsoLogin(stateHash: string, now: string): Promise<SsoLoginRecord | null>;
}
