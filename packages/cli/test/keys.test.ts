import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliAgainstServer } from './helpers.ts';

const cli = useCliAgainstServer();
const run = cli.run;

describe('dossier login and keys', () => {
  it('logs in with a piped password, keeps the session private, and manages keys with it', async () => {
    expect((await run(['keys', 'list'])).stderr).toMatch(/dossier login/);
    const wrong = await run(['login', '--email', cli.server.email], 'wrong password\n');
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toMatch(/wrong email or password/);
    const login = await run(['login', '--email', cli.server.email], `${cli.server.password}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/logged in as admin@example.test/);
    const files = [join(cli.home, '.config', 'dossier', 'session.json')];
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
