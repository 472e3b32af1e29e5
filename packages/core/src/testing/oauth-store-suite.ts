import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MetadataStore } from '../ports/metadata-store.ts';
import type { OAuthClientRecord, OAuthCodeRecord, OAuthGrantRecord, OAuthTokenRecord } from '../ports/oauth-store.ts';
import { seedTenant } from './seed.ts';

/** Conformance tests of the OAuthStore part of a MetadataStore (issue 18; run by metadataStoreSuite). */

const at = (second: number): string => new Date(Date.parse('2024-05-01T00:00:00.000Z') + second * 1000).toISOString();

async function seed(store: MetadataStore): Promise<{ accountId: string; projectId: string; client: OAuthClientRecord }> {
  const { accountId, projectId } = await seedTenant(store, at(0));
  const client: OAuthClientRecord = {
    id: randomUUID(),
    name: 'Desktop app',
    redirectUris: ['http://127.0.0.1:33418/callback', 'cursor://anysphere/oauth'],
    authMethod: 'none',
    secretHash: null,
    metadata: { client_name: 'Desktop app', grant_types: ['authorization_code', 'refresh_token'] },
    createdAt: at(1),
  };
  await store.createOAuthClient(client);
  return { accountId, projectId, client };
}

const terms = (s: { accountId: string; projectId: string; client: OAuthClientRecord }) => ({
  clientId: s.client.id,
  accountId: s.accountId,
  projectId: s.projectId,
  env: 'live' as const,
  scopes: ['svc:read' as const],
  resource: 'https://dossier.example.com/mcp',
});

const grantOf = (s: Awaited<ReturnType<typeof seed>>, second: number, over: Partial<OAuthGrantRecord> = {}): OAuthGrantRecord => ({
  ...terms(s),
  id: randomUUID(),
  createdAt: at(second),
  expiresAt: at(second + 1000),
  lastUsedAt: null,
  revokedAt: null,
  ...over,
});

const token = (grantId: string, kind: OAuthTokenRecord['kind'], second: number, expiresAt = at(second + 100)): OAuthTokenRecord => ({
  tokenHash: randomUUID().replace(/-/g, ''),
  grantId,
  kind,
  expiresAt,
  createdAt: at(second),
  usedAt: null,
  revokedAt: null,
});

export function oauthStoreTests(store: () => MetadataStore): void {
  describe('OAuth clients, codes, grants and tokens', () => {
    it('stores a client with every field and finds it by id; an unknown id is null', async () => {
      const { client } = await seed(store());
      expect(await store().getOAuthClient(client.id)).toEqual(client);
      expect(await store().getOAuthClient(randomUUID())).toBeNull();
    });

    it('consumes a code once: the first call sees a first use, every later one sees it used', async () => {
      const s = await seed(store());
      const code: OAuthCodeRecord = {
        ...terms(s),
        scopes: ['svc:full'],
        codeHash: 'c'.repeat(64),
        grantId: randomUUID(),
        redirectUri: s.client.redirectUris[0] as string,
        codeChallenge: 'x'.repeat(43),
        expiresAt: at(300),
        usedAt: null,
        createdAt: at(2),
      };
      await store().createOAuthCode(code);
      expect(await store().consumeOAuthCode(code.codeHash, at(3))).toEqual({ code: { ...code, usedAt: at(3) }, firstUse: true });
      expect(await store().consumeOAuthCode(code.codeHash, at(4))).toEqual({ code: { ...code, usedAt: at(3) }, firstUse: false });
      expect(await store().consumeOAuthCode('unknown', at(4))).toBeNull();
    });

    it('lets only one of two racing consumers of a code see its first use', async () => {
      const s = await seed(store());
      const code: OAuthCodeRecord = {
        ...terms(s),
        codeHash: 'd'.repeat(64),
        grantId: randomUUID(),
        redirectUri: 'http://127.0.0.1:33418/callback',
        codeChallenge: 'y'.repeat(43),
        expiresAt: at(300),
        usedAt: null,
        createdAt: at(2),
      };
      await store().createOAuthCode(code);
      const results = await Promise.all([store().consumeOAuthCode(code.codeHash, at(3)), store().consumeOAuthCode(code.codeHash, at(3))]);
      expect(results.filter((r) => r?.firstUse)).toHaveLength(1);
    });

    it('creates a grant with its tokens and finds each token by hash', async () => {
      const s = await seed(store());
      const grant = grantOf(s, 10);
      const access = token(grant.id, 'access', 10);
      const refresh = token(grant.id, 'refresh', 10, at(2000));
      await store().createOAuthGrant(grant, [access, refresh]);
      expect(await store().getOAuthGrant(grant.id)).toEqual(grant);
      expect(await store().findOAuthToken(access.tokenHash)).toEqual(access);
      expect(await store().findOAuthToken(refresh.tokenHash)).toEqual(refresh);
      expect(await store().findOAuthToken('unknown')).toBeNull();
    });

    it('rotates a refresh token once: successors stored, grant expiry and last use moved; a second rotation changes nothing', async () => {
      const s = await seed(store());
      const grant = grantOf(s, 10);
      const refresh = token(grant.id, 'refresh', 10);
      await store().createOAuthGrant(grant, [refresh]);
      const next = [token(grant.id, 'access', 20), token(grant.id, 'refresh', 20, at(5000))];
      expect(await store().rotateOAuthRefreshToken(refresh.tokenHash, at(20), next, at(5000))).toBe(true);
      expect(await store().findOAuthToken(refresh.tokenHash)).toEqual({ ...refresh, usedAt: at(20) });
      expect(await store().findOAuthToken(next[1]?.tokenHash as string)).toEqual(next[1]);
      expect(await store().getOAuthGrant(grant.id)).toEqual({ ...grant, expiresAt: at(5000), lastUsedAt: at(20) });
      const again = [token(grant.id, 'refresh', 30)];
      expect(await store().rotateOAuthRefreshToken(refresh.tokenHash, at(30), again, at(9000))).toBe(false);
      expect(await store().findOAuthToken(again[0]?.tokenHash as string)).toBeNull();
      expect((await store().getOAuthGrant(grant.id))?.expiresAt).toBe(at(5000));
    });

    it('never rotates an access token as if it were a refresh token', async () => {
      const s = await seed(store());
      const grant = grantOf(s, 10);
      const access = token(grant.id, 'access', 10);
      await store().createOAuthGrant(grant, [access]);
      expect(await store().rotateOAuthRefreshToken(access.tokenHash, at(20), [], at(5000))).toBe(false);
      expect((await store().findOAuthToken(access.tokenHash))?.usedAt).toBeNull();
    });

    it("lists a project's grants newest first without revoked or lapsed ones; a revoked grant keeps its first revocation time", async () => {
      const s = await seed(store());
      const older = grantOf(s, 10);
      const newer = grantOf(s, 20);
      const lapsed = grantOf(s, 30, { expiresAt: at(40) });
      const revoked = grantOf(s, 35);
      for (const grant of [older, newer, lapsed, revoked]) await store().createOAuthGrant(grant, []);
      await store().revokeOAuthGrant(revoked.id, at(50));
      await store().revokeOAuthGrant(revoked.id, at(60));
      expect((await store().listOAuthGrants(s.projectId, at(100))).map((g) => g.id)).toEqual([newer.id, older.id]);
      expect((await store().getOAuthGrant(revoked.id))?.revokedAt).toBe(at(50));
      expect(await store().listOAuthGrants(randomUUID(), at(100))).toEqual([]);
    });

    it("revokes one token, records a grant's last use, and prunes only codes and tokens that expired", async () => {
      const s = await seed(store());
      const grant = grantOf(s, 10);
      const expired = token(grant.id, 'access', 10, at(20));
      const current = token(grant.id, 'access', 10, at(500));
      await store().createOAuthGrant(grant, [expired, current]);
      await store().revokeOAuthToken(current.tokenHash, at(30));
      expect((await store().findOAuthToken(current.tokenHash))?.revokedAt).toBe(at(30));
      await store().touchOAuthGrant(grant.id, at(31));
      expect((await store().getOAuthGrant(grant.id))?.lastUsedAt).toBe(at(31));
      expect(await store().pruneOAuthRows(at(100))).toBeGreaterThanOrEqual(1);
      expect(await store().findOAuthToken(expired.tokenHash)).toBeNull();
      expect(await store().findOAuthToken(current.tokenHash)).not.toBeNull();
    });

    it("deletes a project's grants and tokens with the project", async () => {
      const s = await seed(store());
      const grant = grantOf(s, 10);
      const access = token(grant.id, 'access', 10);
      await store().createOAuthGrant(grant, [access]);
      await store().deleteProject(s.projectId);
      expect(await store().getOAuthGrant(grant.id)).toBeNull();
      expect(await store().findOAuthToken(access.tokenHash)).toBeNull();
    });
  });
}
