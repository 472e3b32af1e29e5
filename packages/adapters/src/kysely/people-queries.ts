import {
  type AccountSessionRecord,
  DossierError,
  type InvitationRecord,
  type PasswordResetRecord,
  type SessionMethod,
  type SsoLoginRecord,
} from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import type { AccountSessionsTable, InvitationsTable, PasswordResetsTable, SsoLoginsTable } from './schema.ts';

/** People on a team (PeopleStore, issue 42): invitations, sessions, reset links and SSO identities; secrets only as hashes. */

const invitationFromRow = (r: Selectable<InvitationsTable>): InvitationRecord => ({
  id: r.id,
  orgId: r.org_id,
  email: r.email,
  role: r.role,
  tokenHash: r.token_hash,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  acceptedAt: r.accepted_at,
  revokedAt: r.revoked_at,
});

const sessionFromRow = (r: Selectable<AccountSessionsTable>): AccountSessionRecord => ({
  id: r.id,
  accountId: r.account_id,
  method: r.method as SessionMethod,
  userAgent: r.user_agent,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

const resetFromRow = (r: Selectable<PasswordResetsTable>): PasswordResetRecord => ({
  tokenHash: r.token_hash,
  accountId: r.account_id,
  issuedBy: r.issued_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
});

const ssoLoginFromRow = (r: Selectable<SsoLoginsTable>): SsoLoginRecord => ({
  stateHash: r.state_hash,
  providerId: r.provider_id,
  codeVerifier: r.code_verifier,
  nonce: r.nonce,
  context: r.context,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

export async function createInvitation({ db }: StoreContext, i: InvitationRecord): Promise<void> {
  await db
    .insertInto('invitations')
    .values({
      id: i.id,
      org_id: i.orgId,
      email: i.email,
      email_normalized: i.email.toLowerCase(),
      role: i.role,
      token_hash: i.tokenHash,
      invited_by: i.invitedBy,
      created_at: i.createdAt,
      expires_at: i.expiresAt,
      accepted_at: i.acceptedAt,
      revoked_at: i.revokedAt,
    })
    .execute();
}

export async function getInvitation({ db }: StoreContext, id: string): Promise<InvitationRecord | null> {
  const row = await db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? invitationFromRow(row) : null;
}

export async function findInvitationByTokenHash({ db }: StoreContext, tokenHash: string): Promise<InvitationRecord | null> {
  const row = await db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row ? invitationFromRow(row) : null;
}

const pending = (db: StoreContext['db'], now: string) =>
  db.selectFrom('invitations').selectAll().where('accepted_at', 'is', null).where('revoked_at', 'is', null).where('expires_at', '>', now);

export async function listPendingInvitations({ db }: StoreContext, orgId: string, now: string): Promise<InvitationRecord[]> {
  const rows = await pending(db, now).where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map(invitationFromRow);
}

export async function listPendingInvitationsForEmail({ db }: StoreContext, email: string, now: string): Promise<InvitationRecord[]> {
  const rows = await pending(db, now).where('email_normalized', '=', email.toLowerCase()).orderBy('created_at').orderBy('id').execute();
  return rows.map(invitationFromRow);
}

export async function revokeInvitation({ db }: StoreContext, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function acceptInvitation({ db }: StoreContext, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ accepted_at: at })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function createSession({ db }: StoreContext, s: AccountSessionRecord): Promise<void> {
  await db
    .insertInto('account_sessions')
    .values({
      id: s.id,
      account_id: s.accountId,
      method: s.method,
      user_agent: s.userAgent,
      created_at: s.createdAt,
      expires_at: s.expiresAt,
      revoked_at: s.revokedAt,
    })
    .execute();
}

export async function getSession({ db }: StoreContext, id: string): Promise<AccountSessionRecord | null> {
  const row = await db.selectFrom('account_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? sessionFromRow(row) : null;
}

export async function listSessions({ db }: StoreContext, accountId: string, now: string): Promise<AccountSessionRecord[]> {
  const rows = await db
    .selectFrom('account_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(sessionFromRow);
}

export async function revokeSession({ db }: StoreContext, accountId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('account_sessions')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function extendSession({ db }: StoreContext, id: string, expiresAt: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('account_sessions')
    .set({ expires_at: expiresAt })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function revokeAllSessions({ db }: StoreContext, accountId: string, at: string): Promise<void> {
  await db.updateTable('account_sessions').set({ revoked_at: at }).where('account_id', '=', accountId).where('revoked_at', 'is', null).execute();
}

export async function createPasswordReset({ db }: StoreContext, r: PasswordResetRecord): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({
      token_hash: r.tokenHash,
      account_id: r.accountId,
      issued_by: r.issuedBy,
      created_at: r.createdAt,
      expires_at: r.expiresAt,
      used_at: r.usedAt,
    })
    .execute();
}

export async function consumePasswordReset({ db }: StoreContext, tokenHash: string, at: string): Promise<PasswordResetRecord | null> {
  const spent = await db
    .updateTable('password_resets')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) !== 1) return null;
  const row = await db.selectFrom('password_resets').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row ? resetFromRow(row) : null;
}

export async function setAccountEmail({ db, dialect }: StoreContext, accountId: string, email: string): Promise<void> {
  try {
    await db.updateTable('accounts').set({ email, email_normalized: email.toLowerCase() }).where('id', '=', accountId).execute();
  } catch (err) {
    if (!dialect.isUniqueViolation(err)) throw err;
    throw new DossierError('conflict', 'An account with this email already exists', { cause: err });
  }
}

export async function findAccountIdBySsoIdentity({ db }: StoreContext, issuer: string, subject: string): Promise<string | null> {
  const row = await db.selectFrom('sso_identities').select('account_id').where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
  return row?.account_id ?? null;
}

export async function linkSsoIdentity({ db }: StoreContext, issuer: string, subject: string, accountId: string, at: string): Promise<void> {
  await db.insertInto('sso_identities').values({ issuer, subject, account_id: accountId, created_at: at }).execute();
}

export async function createSsoLogin({ db }: StoreContext, l: SsoLoginRecord): Promise<void> {
  await db
    .insertInto('sso_logins')
    .values({
      state_hash: l.stateHash,
      provider_id: l.providerId,
      code_verifier: l.codeVerifier,
      nonce: l.nonce,
      context: l.context,
      created_at: l.createdAt,
      expires_at: l.expiresAt,
    })
    .execute();
}

/** Delete the attempt and return it when this call deleted it (a replayed callback finds nothing); expired ones go too. */
export async function takeSsoLogin({ db }: StoreContext, stateHash: string, now: string): Promise<SsoLoginRecord | null> {
  await db.deleteFrom('sso_logins').where('expires_at', '<=', now).execute();
  const row = await db.selectFrom('sso_logins').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
  if (!row) return null;
  const taken = await db.deleteFrom('sso_logins').where('state_hash', '=', stateHash).executeTakeFirst();
  return Number(taken.numDeletedRows) === 1 ? ssoLoginFromRow(row) : null;
}
