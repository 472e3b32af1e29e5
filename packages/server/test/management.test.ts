import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer } from './helpers.ts';

/** The management plane (issue 9): orgs, projects, members, password change and token revocation. */

let t: TestServer;
let admin: string;

const login = async (email: string, password: string): Promise<string> =>
  (await t.request('POST', '/v1/auth/login', { auth: null, json: { email, password } })).body.token;
const jwt = (token: string, method: string, path: string, json?: unknown) => t.request(method, path, { auth: token, ...(json === undefined ? {} : { json }) });

beforeAll(async () => {
  t = await startTestServer();
  admin = await login(t.email, t.password);
  await t.server.dossier.auth.bootstrap('colleague@example.test', 'colleague long password');
});
afterAll(async () => {
  await t?.close();
});

describe('orgs, projects and members', () => {
  it('creates an org and a project whose keys work at once, renames both, and deletes them once empty', async () => {
    const org = await jwt(admin, 'POST', '/v1/orgs', { name: 'Research lab' });
    expect(org.status).toBe(201);
    expect((await jwt(admin, 'GET', '/v1/orgs')).body.map((o: Json) => o.id)).toContain(org.body.id);
    expect((await jwt(admin, 'PATCH', `/v1/orgs/${org.body.id}`, { name: 'Lab' })).body).toMatchObject({ id: org.body.id, name: 'Lab' });
    const created = await jwt(admin, 'POST', `/v1/orgs/${org.body.id}/projects`, { name: 'Papers' });
    expect(created.status).toBe(201);
    expect(created.body.liveKey).toMatch(/^dsk_live_/);
    expect(created.body.testKey).toMatch(/^dsk_test_/);
    const projectPath = `/v1/orgs/${org.body.id}/projects/${created.body.project.id}`;
    expect((await jwt(admin, 'PATCH', projectPath, { name: 'Preprints' })).body).toMatchObject({ name: 'Preprints' });
    const collection = await t.request('POST', '/v1/collections', { auth: created.body.liveKey, json: { projectId: created.body.project.id, name: 'c' } });
    expect(collection.status).toBe(201);
    expectError(await jwt(admin, 'DELETE', projectPath), 409, /collections/);
    expectError(await jwt(admin, 'DELETE', `/v1/orgs/${org.body.id}`), 409, /collections/);
    expect((await t.request('DELETE', `/v1/collections/${collection.body.id}`, { auth: created.body.liveKey })).status).toBe(204);
    expect((await jwt(admin, 'DELETE', projectPath)).status).toBe(204);
    expectError(await t.request('GET', '/v1/collections', { auth: created.body.liveKey }), 401);
    expect((await jwt(admin, 'DELETE', `/v1/orgs/${org.body.id}`)).status).toBe(204);
    expectError(await jwt(admin, 'GET', `/v1/orgs/${org.body.id}/projects`), 404);
  });

  it('adds members with roles; members read but cannot administer; the last admin stays', async () => {
    const orgId = (await jwt(admin, 'POST', '/v1/orgs', { name: 'Team' })).body.id;
    const colleague = await login('colleague@example.test', 'colleague long password');
    expectError(await jwt(colleague, 'GET', `/v1/orgs/${orgId}/members`), 404);
    const added = await jwt(admin, 'PUT', `/v1/orgs/${orgId}/members`, { email: 'Colleague@example.test', role: 'member' });
    expect(added.body).toMatchObject({ email: 'colleague@example.test', role: 'member' });
    expect((await jwt(colleague, 'GET', `/v1/orgs/${orgId}/members`)).body.map((m: Json) => m.role).sort()).toEqual(['admin', 'member']);
    expectError(await jwt(colleague, 'PATCH', `/v1/orgs/${orgId}`, { name: 'Mine' }), 403, /admin/);
    expectError(await jwt(colleague, 'POST', `/v1/orgs/${orgId}/projects`, { name: 'p' }), 403);
    expectError(await jwt(admin, 'PUT', `/v1/orgs/${orgId}/members`, { email: 'nobody@example.test', role: 'member' }), 404, /account/);
    const me = (await jwt(admin, 'GET', `/v1/orgs/${orgId}/members`)).body.find((m: Json) => m.role === 'admin');
    expectError(await jwt(admin, 'PUT', `/v1/orgs/${orgId}/members`, { email: t.email, role: 'member' }), 409, /admin/);
    expectError(await jwt(admin, 'DELETE', `/v1/orgs/${orgId}/members/${me.accountId}`), 409);
    expect((await jwt(admin, 'DELETE', `/v1/orgs/${orgId}/members/${added.body.accountId}`)).status).toBe(204);
    expectError(await jwt(colleague, 'GET', `/v1/orgs/${orgId}/members`), 404);
  });
});

describe('passwords and tokens', () => {
  it('changes a password: older tokens stop working, the new password logs in', async () => {
    const before = await login('colleague@example.test', 'colleague long password');
    expectError(await jwt(before, 'POST', '/v1/auth/password', { currentPassword: 'wrong', newPassword: 'a new long password' }), 401, /current password/);
    expectError(await jwt(before, 'POST', '/v1/auth/password', { currentPassword: 'colleague long password', newPassword: 'short' }), 400, /12/);
    expect((await jwt(before, 'POST', '/v1/auth/password', { currentPassword: 'colleague long password', newPassword: 'a new long password' })).status).toBe(
      204,
    );
    expectError(await jwt(before, 'GET', '/v1/orgs'), 401);
    expectError(await t.request('POST', '/v1/auth/login', { auth: null, json: { email: 'colleague@example.test', password: 'colleague long password' } }), 401);
    const after = await login('colleague@example.test', 'a new long password');
    expect((await jwt(after, 'GET', '/v1/orgs')).status).toBe(200);
  });

  it('logs out everywhere: every token of the account is refused, a new login works', async () => {
    const first = await login(t.email, t.password);
    const second = await login(t.email, t.password);
    expect((await jwt(first, 'POST', '/v1/auth/logout-all')).status).toBe(204);
    expectError(await jwt(second, 'GET', '/v1/orgs'), 401);
    expectError(await jwt(first, 'GET', '/v1/orgs'), 401);
    expect((await jwt(await login(t.email, t.password), 'GET', '/v1/orgs')).status).toBe(200);
  });
});
