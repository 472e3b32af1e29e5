import { describe, expect, it } from 'vitest';
import { useCliAgainstServer } from './helpers.ts';

const cli = useCliAgainstServer();
const run = cli.run;

/** Accept an invitation link as the invitee would (its page's JSON twin); the new member's token. */
async function accept(url: string, password: string): Promise<string> {
  const res = await fetch(`${cli.server.url}/v1/invitations/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(url).searchParams.get('token'), password }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

describe('dossier members (issue 42)', () => {
  it('invites, lists members and pending invitations, revokes an invitation and removes a member', async () => {
    expect((await run(['login', '--email', cli.server.email], `${cli.server.password}\n`)).code).toBe(0);
    const invited = await run(['members', 'invite', 'grace@example.test', '--role', 'admin']);
    expect(invited.code, invited.stderr).toBe(0);
    expect(invited.stderr).toMatch(/invited grace@example.test as admin/);
    const url = invited.stdout.trim();
    expect(url).toMatch(/\/invite\?token=[\w-]+$/);
    const pending = await run(['members', 'invite', 'late@example.test', '--json']);
    const late = JSON.parse(pending.stdout);
    const table = await run(['members', 'list']);
    expect(table.stdout).toMatch(/admin@example.test +admin/);
    expect(table.stdout).toMatch(/grace@example.test +admin/);
    expect(table.stdout).toContain(late.id);

    const grace = await accept(url, 'a long passphrase for G');
    // The new admin acts through the CLI with her own session token.
    const asGrace = await run(['members', 'list', '--json', '--token', grace]);
    expect(JSON.parse(asGrace.stdout).members.map((m: { email: string }) => m.email)).toContain('grace@example.test');

    expect((await run(['members', 'revoke', late.id])).stderr).toMatch(/revoked invitation/);
    expect((await run(['members', 'revoke', late.id])).code).toBe(3);
    const removed = await run(['members', 'remove', 'grace@example.test']);
    expect(removed.code, removed.stderr).toBe(0);
    const after = await run(['members', 'list', '--token', grace]);
    expect(after.code, after.stderr).toBe(5);
    expect((await run(['members', 'remove', 'nobody@example.test'])).code).toBe(3);
    expect((await run(['members', 'invite', 'x@example.test', '--role', 'owner'])).code).toBe(2);
  });
});
