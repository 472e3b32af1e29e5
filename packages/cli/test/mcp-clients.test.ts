import { describe, expect, it } from 'vitest';
import { tokensFor } from '../../server/test/oauth-client.ts';
import { useCliAgainstServer } from './helpers.ts';

const cli = useCliAgainstServer();
const run = cli.run;

describe('dossier mcp clients', () => {
  it('lists the connected MCP clients of the project and revokes one, whose tokens then stop working', async () => {
    const { client, tokens } = await tokensFor(cli.server, 'svc:full');
    expect((await run(['login', '--email', cli.server.email], `${cli.server.password}\n`)).code).toBe(0);
    const table = await run(['mcp', 'clients', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/Test desktop app +live +svc:full +admin@example.test/);
    const listed = JSON.parse((await run(['mcp', 'clients', '--json'])).stdout);
    expect(listed).toEqual([expect.objectContaining({ clientId: client.client_id, scopes: ['svc:full'], env: 'live' })]);
    expect(JSON.stringify(listed)).not.toContain(tokens.access_token);

    const revoked = await run(['mcp', 'clients', 'revoke', listed[0].id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toMatch(/disconnected/);
    expect((await run(['mcp', 'clients', 'list'])).stderr).toMatch(/no connected clients/);
    const refresh = await fetch(`${cli.server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }),
    });
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('answers a usage error for an unknown action and 404 (exit code) for an unknown connection', async () => {
    const unknown = await run(['mcp', 'clients', 'frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/list or revoke/);
    const missing = await run(['mcp', 'clients', 'revoke', crypto.randomUUID()]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/not found/i);
  });
});
