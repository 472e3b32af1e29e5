import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MetadataStore } from '../ports/metadata-store.ts';
import type { AccountSessionRecord, InvitationRecord } from '../ports/people-store.ts';
import { seedTenant } from './seed.ts';

/** Conformance tests of the PeopleStore part of a MetadataStore (issue 42; run by metadataStoreSuite). */

const at = (second: number): string => new Date(Date.parse('2024-05-01T00:00:00.000Z') + second * 1000).toISOString();

const invitation = (orgId: string, second: number, over: Partial<InvitationRecord> = {}): InvitationRecord => ({
  id: randomUUID(),
  orgId,
  email: 'Grace@Example.com',
  role: 'member',
  tokenHash: randomUUID().replace(/-/g, ''),
  invitedBy: null,
  createdAt: at(second),
  expiresAt: at(second + 100),
  acceptedAt: null,
  revokedAt: null,
  ...over,
});

const session = (accountId: string, second: number): AccountSessionRecord => ({
  id: randomUUID(),
  accountId,
  method: 'password',
  userAgent: 'curl/8',
  createdAt: at(second),
  expiresAt: at(second + 100),
  revokedAt: null,
});

function invitationTests(store: () => MetadataStore): void {
  it('lists pending invitations newest first, finds one by its hash, and accepts or revokes it once', async () => {
    const { orgId } = await seedTenant(store(), at(0));
    const first = invitation(orgId, 1);
    const second = invitation(orgId, 2, { role: 'admin' });
    const expired = invitation(orgId, -200);
    for (const i of [first, second, expired]) await store().createInvitation(i);
    expect((await store().listPendingInvitations(orgId, at(10))).map((i) => i.id)).toEqual([second.id, first.id]);
    expect(await store().findInvitationByTokenHash(second.tokenHash)).toEqual(second);
    expect((await store().listPendingInvitationsForEmail('grace@example.COM', at(10))).map((i) => i.id)).toEqual([first.id, second.id]);
    expect(await store().acceptInvitation(first.id, at(11))).toBe(true);
    expect(await store().acceptInvitation(first.id, at(12))).toBe(false);
    expect(await store().acceptInvitation(expired.id, at(12))).toBe(false);
    expect(await store().revokeInvitation(second.id, at(13))).toBe(true);
    expect(await store().revokeInvitation(second.id, at(14))).toBe(false);
    expect(await store().acceptInvitation(second.id, at(15))).toBe(false);
    expect(await store().listPendingInvitations(orgId, at(16))).toEqual([]);
    expect((await store().getInvitation(first.id))?.acceptedAt).toBe(at(11));
  });
}

function sessionTests(store: () => MetadataStore): void {
  it("lists live sessions newest first and revokes one (only its own account's) or all", async () => {
    const { accountId } = await seedTenant(store(), at(0));
    const other = await seedTenant(store(), at(0));
    const [a, b] = [session(accountId, 1), session(accountId, 2)];
    await store().createSession(a);
    await store().createSession(b);
    expect((await store().listSessions(accountId, at(5))).map((s) => s.id)).toEqual([b.id, a.id]);
    expect(await store().getSession(a.id)).toEqual(a);
    expect(await store().revokeSession(other.accountId, a.id, at(6))).toBe(false);
    expect(await store().revokeSession(accountId, a.id, at(6))).toBe(true);
    expect((await store().listSessions(accountId, at(7))).map((s) => s.id)).toEqual([b.id]);
    await store().revokeAllSessions(accountId, at(8));
    expect(await store().listSessions(accountId, at(9))).toEqual([]);
    expect((await store().getSession(b.id))?.revokedAt).toBe(at(8));
  });

  it('extends a live session (sliding renewal), never a revoked or expired one', async () => {
    const { accountId } = await seedTenant(store(), at(0));
    const [live, expired, revoked] = [session(accountId, 1), session(accountId, 2), session(accountId, 3)];
    for (const s of [live, expired, revoked]) await store().createSession(s);
    await store().revokeSession(accountId, revoked.id, at(4));
    expect(await store().extendSession(live.id, at(250), at(50))).toBe(true);
    expect((await store().getSession(live.id))?.expiresAt).toBe(at(250));
    expect(await store().extendSession(expired.id, at(300), at(200))).toBe(false); // it expired at 102
    expect((await store().getSession(expired.id))?.expiresAt).toBe(at(102));
    expect(await store().extendSession(revoked.id, at(300), at(50))).toBe(false);
    expect((await store().listSessions(accountId, at(200))).map((s) => s.id)).toEqual([live.id]);
  });
}

function resetAndSsoTests(store: () => MetadataStore): void {
  it('spends a reset link once and never after it expires', async () => {
    const { accountId } = await seedTenant(store(), at(0));
    const reset = { tokenHash: randomUUID(), accountId, issuedBy: null, createdAt: at(1), expiresAt: at(50), usedAt: null };
    const late = { ...reset, tokenHash: randomUUID() };
    await store().createPasswordReset(reset);
    await store().createPasswordReset(late);
    expect(await store().consumePasswordReset(reset.tokenHash, at(2))).toEqual({ ...reset, usedAt: at(2) });
    expect(await store().consumePasswordReset(reset.tokenHash, at(3))).toBeNull();
    expect(await store().consumePasswordReset(late.tokenHash, at(50))).toBeNull();
  });

  it('changes an e-mail unless another account has it, links SSO identities and takes an SSO attempt once', async () => {
    const { accountId } = await seedTenant(store(), at(0));
    const other = await seedTenant(store(), at(0));
    await store().setAccountEmail(accountId, 'New@Example.com');
    expect((await store().findAccountByEmail('new@example.com'))?.id).toBe(accountId);
    await expect(store().setAccountEmail(other.accountId, 'NEW@example.com')).rejects.toMatchObject({ code: 'conflict' });
    await store().linkSsoIdentity('https://idp.example.com', 'sub-1', accountId, at(1));
    expect(await store().findAccountIdBySsoIdentity('https://idp.example.com', 'sub-1')).toBe(accountId);
    expect(await store().findAccountIdBySsoIdentity('https://other.example.com', 'sub-1')).toBeNull();
    const attempt = { stateHash: randomUUID(), providerId: 'corp', codeVerifier: 'v', nonce: 'n', context: null, createdAt: at(1), expiresAt: at(60) };
    await store().createSsoLogin(attempt);
    expect(await store().takeSsoLogin(attempt.stateHash, at(2))).toEqual(attempt);
    expect(await store().takeSsoLogin(attempt.stateHash, at(3))).toBeNull();
    const stale = { ...attempt, stateHash: randomUUID() };
    await store().createSsoLogin(stale);
    expect(await store().takeSsoLogin(stale.stateHash, at(60))).toBeNull();
  });
}

export function peopleStoreTests(store: () => MetadataStore): void {
  describe('people: invitations, sessions, reset links, SSO', () => {
    invitationTests(store);
    sessionTests(store);
    resetAndSsoTests(store);
  });
}
