import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';
import { authorizeParams, CALLBACK, consent, pkcePair, registerClient, token } from './oauth-client.ts';

/**
 * People on a team (issue 42) through the HTTP API of a real server: invitations (one-time, expiring, revocable
 * links), accounts and their sessions, removal ending access at once, and password reset links.
 */

let t: TestServer;
let admin: string;

const login = async (email: string, password: string) => t.request('POST', '/v1/auth/login', { auth: null, json: { email, password } });
/** A strong password that does not contain the e-mail's name. */
const pass = (name: string) => `${[...name].reverse().join('')} long passphrase`;
const tokenOf = (url: string) => new URL(url, 'http://x').searchParams.get('token')!;

async function invite(email: string, role: 'admin' | 'member' = 'member', auth = admin) {
  return t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth, json: { email, role } });
}

/** Invite and accept: the new member's token and account id. */
async function newMember(email: string, password: string, role: 'admin' | 'member' = 'member'): Promise<{ token: string; id: string }> {
  const created = await invite(email, role);
  const accepted = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token: tokenOf(created.body.url), password } });
  expect(accepted.status).toBe(200);
  return { token: accepted.body.token, id: accepted.body.user.id };
}

beforeAll(async () => {
  t = await startTestServer({ config: { workers: 0 } });
  admin = (await login(t.email, t.password)).body.token;
});
afterAll(async () => {
  await t?.close();
});

describe('invitations', () => {
  it('answers a one-time link once, lists it while pending, and makes the invitee a member who can sign in', async () => {
    const created = await invite('grace@example.test');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'grace@example.test', role: 'member', orgId: t.orgId, emailed: false });
    expect(created.body.url).toMatch(/\/invite\?token=[\w-]{40,}$/);
    const listed = await t.request('GET', `/v1/orgs/${t.orgId}/invitations`, { auth: admin });
    expect(listed.body.map((i: { id: string }) => i.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(tokenOf(created.body.url));
    const token = tokenOf(created.body.url);
    expect((await t.request('POST', '/v1/invitations/preview', { auth: null, json: { token } })).body).toMatchObject({
      email: 'grace@example.test',
      role: 'member',
      hasAccount: false,
    });
    const weak = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token, password: 'password1234' } });
    expect([weak.status, weak.body.error]).toEqual([400, 'password: is a well-known password']);
    const accepted = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token, password: 'a long and new passphrase' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ orgId: t.orgId, role: 'member', user: { email: 'grace@example.test' } });
    const projects = await t.request('GET', `/v1/orgs/${t.orgId}/projects`, { auth: accepted.body.token });
    expect(projects.body.map((p: { id: string }) => p.id)).toEqual([t.projectId]);
    expect((await login('grace@example.test', 'a long and new passphrase')).status).toBe(200);
    const again = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token, password: 'a long and new passphrase' } });
    expect(again.status).toBe(404);
    expect((await t.request('GET', `/v1/orgs/${t.orgId}/invitations`, { auth: admin })).body.map((i: { id: string }) => i.id)).not.toContain(created.body.id);
  });

  it('lets an admin-invited admin act as admin, and refuses members, existing members and revoked links', async () => {
    const boss = await newMember('boss@example.test', pass('boss'), 'admin');
    expect((await t.request('POST', `/v1/orgs/${t.orgId}/projects`, { auth: boss.token, json: { name: 'By the new admin' } })).status).toBe(201);
    const member = await newMember('mia@example.test', pass('mia'));
    expect((await invite('someone@example.test', 'member', member.token)).status).toBe(403);
    expect((await t.request('POST', `/v1/orgs/${t.orgId}/projects`, { auth: member.token, json: { name: 'Nope' } })).status).toBe(403);
    expect((await invite('MIA@example.test')).status).toBe(409);
    const revoked = await invite('late@example.test');
    expect((await t.request('DELETE', `/v1/orgs/${t.orgId}/invitations/${revoked.body.id}`, { auth: admin })).status).toBe(204);
    expect((await t.request('DELETE', `/v1/orgs/${t.orgId}/invitations/${revoked.body.id}`, { auth: admin })).status).toBe(404);
    const late = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token: tokenOf(revoked.body.url), password: pass('late') } });
    expect(late.status).toBe(404);
  });

  it('replaces a pending link when the same e-mail is invited again, and links an existing account only with its password', async () => {
    const first = await invite('twice@example.test');
    const second = await invite('twice@example.test', 'admin');
    const stale = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token: tokenOf(first.body.url), password: pass('twice') } });
    expect(stale.status).toBe(404);
    expect(
      (await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token: tokenOf(second.body.url), password: pass('twice') } })).body.role,
    ).toBe('admin');
    // An account of another org joins this one with its own password.
    const other = (await t.server.dossier.auth.bootstrap('elsewhere@example.test', pass('elsewhere')))!;
    const created = await invite('elsewhere@example.test');
    const wrong = await t.request('POST', '/v1/invitations/accept', {
      auth: null,
      json: { token: tokenOf(created.body.url), password: 'not the password at all' },
    });
    expect(wrong.status).toBe(401);
    const right = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token: tokenOf(created.body.url), password: pass('elsewhere') } });
    expect(right.status).toBe(200);
    const orgs = await t.request('GET', '/v1/orgs', { auth: right.body.token });
    expect(orgs.body.map((o: { id: string }) => o.id).sort()).toEqual([t.orgId, other.orgId].sort());
  });
});

describe('accounts and sessions', () => {
  it('lists the sessions, ends one at once, and changes the e-mail with the current password', async () => {
    const me = await newMember('sam@example.test', pass('sam'));
    const laptop = (
      await t.request('POST', '/v1/auth/login', {
        auth: null,
        json: { email: 'sam@example.test', password: pass('sam') },
        headers: { 'user-agent': 'laptop/1' },
      })
    ).body.token;
    const sessions = await t.request('GET', '/v1/auth/sessions', { auth: me.token });
    expect(sessions.body.map((s: { method: string; current: boolean }) => [s.method, s.current])).toEqual([
      ['password', false],
      ['invitation', true],
    ]);
    expect(sessions.body[0].userAgent).toBe('laptop/1');
    expect((await t.request('DELETE', `/v1/auth/sessions/${sessions.body[0].id}`, { auth: me.token })).status).toBe(204);
    const ended = await t.request('GET', '/v1/orgs', { auth: laptop });
    expect([ended.status, ended.body.error]).toEqual([401, 'This session has ended: sign in again']);
    expect((await t.request('DELETE', `/v1/auth/sessions/${sessions.body[1].id}`, { auth: admin })).status).toBe(404);
    const wrong = await t.request('PATCH', '/v1/auth/account', { auth: me.token, json: { email: 'samuel@example.test', currentPassword: 'nope' } });
    expect(wrong.status).toBe(401);
    const taken = await t.request('PATCH', '/v1/auth/account', { auth: me.token, json: { email: t.email, currentPassword: pass('sam') } });
    expect(taken.status).toBe(409);
    const changed = await t.request('PATCH', '/v1/auth/account', { auth: me.token, json: { email: 'samuel@example.test', currentPassword: pass('sam') } });
    expect(changed.body).toEqual({ id: me.id, email: 'samuel@example.test' });
    expect((await login('samuel@example.test', pass('sam'))).status).toBe(200);
    expect((await login('sam@example.test', pass('sam'))).status).toBe(401);
  });

  it('removes a member of two orgs from this one at once, leaving their other org alone', async () => {
    const other = (await t.server.dossier.auth.bootstrap('two@example.test', pass('two-orgs')))!;
    const created = await invite('two@example.test');
    const joined = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token: tokenOf(created.body.url), password: pass('two-orgs') } });
    expect((await t.request('DELETE', `/v1/orgs/${t.orgId}/members/${joined.body.user.id}`, { auth: admin })).status).toBe(204);
    expect((await t.request('GET', `/v1/orgs/${t.orgId}/projects`, { auth: joined.body.token })).status).toBe(404);
    expect((await t.request('GET', `/v1/orgs/${other.orgId}/projects`, { auth: joined.body.token })).status).toBe(200);
  });

  it('revokes the MCP client connections a removed member granted, and their refresh tokens with them', async () => {
    await newMember('mcp@example.test', pass('mcp-user'));
    const client = await registerClient(t);
    const { verifier, challenge } = pkcePair();
    const answer = await consent(t, authorizeParams(t, client.client_id, challenge), { email: 'mcp@example.test', password: pass('mcp-user') });
    const code = answer.location!.searchParams.get('code')!;
    const tokens = await token(t, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      resource: `${t.url}/mcp`,
    });
    expect(tokens.status).toBe(200);
    const member = (await t.request('GET', `/v1/orgs/${t.orgId}/members`, { auth: admin })).body.find((m: { email: string }) => m.email === 'mcp@example.test');
    const connections = () => t.request('GET', `/v1/orgs/${t.orgId}/projects/${t.projectId}/mcp-clients`, { auth: admin });
    expect((await connections()).body.map((c: { account: { id: string } }) => c.account.id)).toContain(member.accountId);
    expect((await t.request('DELETE', `/v1/orgs/${t.orgId}/members/${member.accountId}`, { auth: admin })).status).toBe(204);
    expect((await connections()).body.map((c: { account: { id: string } }) => c.account.id)).not.toContain(member.accountId);
    const refreshed = await token(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: client.client_id,
      resource: `${t.url}/mcp`,
    });
    expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('ends the tokens of a removed member with no org left at once', async () => {
    const gone = await newMember('gone@example.test', pass('gone'));
    expect((await t.request('GET', '/v1/orgs', { auth: gone.token })).status).toBe(200);
    expect((await t.request('DELETE', `/v1/orgs/${t.orgId}/members/${gone.id}`, { auth: admin })).status).toBe(204);
    expect((await t.request('GET', '/v1/orgs', { auth: gone.token })).status).toBe(401);
    expect((await t.request('GET', `/v1/orgs/${t.orgId}/projects`, { auth: (await login('gone@example.test', pass('gone'))).body.token })).status).toBe(404);
  });

  it('checks the strength of a changed password', async () => {
    const me = await newMember('pat@example.test', pass('pat'));
    const weak = await t.request('POST', '/v1/auth/password', { auth: me.token, json: { currentPassword: pass('pat'), newPassword: 'pat@example.test' } });
    expect([weak.status, weak.body.error]).toEqual([400, 'password: must not contain your e-mail']);
  });
});

describe('password reset links', () => {
  it('lets an admin issue a one-time link that sets a new password and ends every session', async () => {
    const member = await newMember('rob@example.test', pass('rob'));
    const issued = await t.request('POST', `/v1/orgs/${t.orgId}/members/${member.id}/password-reset`, { auth: admin, json: {} });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ emailed: false, url: expect.stringMatching(/\/reset-password\?token=/) });
    const token = tokenOf(issued.body.url);
    const page = await t.request('GET', `/reset-password?token=${token}`, { auth: null });
    expect(page.body).toContain('name="newPassword"');
    const weak = await t.request('POST', '/reset-password', { auth: null, body: new URLSearchParams({ token, newPassword: 'short' }) });
    expect(weak.status).toBe(400);
    const done = await t.request('POST', '/reset-password', { auth: null, body: new URLSearchParams({ token, newPassword: 'rob brand new passphrase' }) });
    expect([done.status, done.body]).toEqual([200, expect.stringContaining('Your password is changed')]);
    expect((await t.request('GET', '/v1/orgs', { auth: member.token })).status).toBe(401);
    expect((await login('rob@example.test', 'rob brand new passphrase')).status).toBe(200);
    const reused = await t.request('POST', '/v1/auth/password-reset', { auth: null, json: { token, newPassword: 'rob other new passphrase' } });
    expect(reused.status).toBe(404);
  });

  it('refuses a member, and an admin of one org resetting an admin of another', async () => {
    const member = await newMember('nia@example.test', pass('nia'));
    expect((await t.request('POST', `/v1/orgs/${t.orgId}/members/${member.id}/password-reset`, { auth: member.token, json: {} })).status).toBe(403);
    // An admin of another org who joined this one as a member: this org's admin may not take their account over.
    const outside = (await t.server.dossier.auth.bootstrap('owner@example.test', pass('owner')))!;
    const created = await invite('owner@example.test');
    const joined = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token: tokenOf(created.body.url), password: pass('owner') } });
    const refused = await t.request('POST', `/v1/orgs/${t.orgId}/members/${joined.body.user.id}/password-reset`, { auth: admin, json: {} });
    expect(refused.status).toBe(403);
    expect(outside.orgId).not.toBe(t.orgId);
  });

  it('answers a request by e-mail the same whether or not the account exists (no mail server: nothing sent)', async () => {
    const known = await t.request('POST', '/v1/auth/password-reset/request', { auth: null, json: { email: t.email } });
    const unknown = await t.request('POST', '/v1/auth/password-reset/request', { auth: null, json: { email: 'nobody@example.test' } });
    expect(known.status).toBe(202);
    expect([unknown.status, unknown.body]).toEqual([known.status, known.body]);
  });
});

describe('the invitation page', () => {
  it('shows the invitation and accepts it from its form; an unusable link says so', async () => {
    const created = await invite('page@example.test');
    const token = tokenOf(created.body.url);
    const page = await t.request('GET', `/invite?token=${token}`, { auth: null });
    expect(page.status).toBe(200);
    expect(page.body).toContain('This invitation is for <strong>page@example.test</strong>');
    const weak = await t.request('POST', '/invite', { auth: null, body: new URLSearchParams({ token, password: 'aaaaaaaaaaaaaaaa' }) });
    expect([weak.status, weak.body]).toEqual([400, expect.stringContaining('needs at least 5 different characters')]);
    const done = await t.request('POST', '/invite', { auth: null, body: new URLSearchParams({ token, password: pass('page') }) });
    expect([done.status, done.body]).toEqual([200, expect.stringContaining('You are a member now')]);
    const used = await t.request('GET', `/invite?token=${token}`, { auth: null });
    expect([used.status, used.body]).toEqual([404, expect.stringContaining('it was used, revoked, or has expired')]);
  });
});
