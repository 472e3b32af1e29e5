import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossier, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let home: { home: string; cleanup: () => void };

beforeAll(async () => {
  t = await startTestServer();
  home = tempHome();
});
afterAll(async () => {
  home.cleanup();
  await t?.close();
});

const run = (args: string[], input?: string) =>
  dossier(home.home, args, { env: { SERVICE_BASE_URL: t.url, SERVICE_PROJECT_ID: t.projectId, SERVICE_ORG_ID: t.orgId }, input });

describe('dossier login and keys', () => {
  it('logs in with a piped password, keeps the session private, and manages keys with it', async () => {
    expect((await run(['keys', 'list'])).stderr).toMatch(/dossier login/);
    const wrong = await run(['login', '--email', t.email], 'wrong password\n');
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toMatch(/wrong email or password/);
    const login = await run(['login', '--email', t.email], `${t.password}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/logged in as admin@example.test/);
    const files = [join(home.home, '.config', 'dossier', 'session.json')];
    expect(statSync(files[0]!).mode & 0o777).toBe(0o600);

    const created = await run(['keys', 'create', '--env', 'test', '--name', 'ci']);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^dsk_test_/);
    const list = await run(['keys', 'list']);
    expect(list.stdout).toMatch(/ test +ci +dsk_test_…/);
    expect(list.stdout).not.toContain(key);
    const id = JSON.parse((await run(['keys', 'list', '--json'])).stdout).find((k: { name: string }) => k.name === 'ci').id;
    expect((await run(['keys', 'revoke', id])).code).toBe(0);
    expect((await run(['keys', 'list'])).stdout).toMatch(/ci .* revoked/);

    const orgKey = await run(['keys', 'create', '--org-keys', '--name', 'backend', '--json']);
    expect(JSON.parse(orgKey.stdout).key).toMatch(/^dsk_org_/);
    expect((await run(['logout', '--everywhere'])).code).toBe(0);
    expect((await run(['keys', 'list'])).code).toBe(5);
  });
});
