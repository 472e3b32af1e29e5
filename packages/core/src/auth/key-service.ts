import type { AccountStore } from '../ports/account-store.ts';
import type { KeyStore } from '../ports/key-store.ts';
import type { ContextPart } from '../context.ts';
import { notFound } from '../domain/errors.ts';
import type { ApiKeyRecord, Env, OrgApiKeyRecord } from '../domain/types.ts';
import { createOrgKeySchema, createProjectKeySchema, parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { generateOrgApiKey } from './api-keys.ts';
import type { SessionClaims } from './jwt.ts';
import { requireOrgRole, requireProjectRole } from './roles.ts';
import { hashSecret, previewSecret } from './secrets.ts';
import type { AuthService } from './service.ts';
import type { KeyService } from '../api/keys.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** A key as listings show it: never the key, only how to recognise it (spec: "not shown"; decided in issue 9). */
export type ApiKeyView = z.output<typeof responses.apiKey>;

const viewOf = (record: ApiKeyRecord | OrgApiKeyRecord, env: Env | 'org', lastFour: string): ApiKeyView => ({
  id: record.id,
  env,
  name: record.name,
  prefix: `dsk_${env}_`,
  lastFour,
  createdAt: record.createdAt,
  lastUsedAt: record.lastUsedAt,
  revokedAt: record.revokedAt,
});

/** The last four characters, from the stored preview (`abcd…wxyz`): the plaintext is never read back. */
const lastFourOf = (preview: string): string => preview.slice(-4);

export const projectKeyView = (record: ApiKeyRecord): ApiKeyView => viewOf(record, record.env, lastFourOf(record.keyPreview));
export const orgKeyView = (record: OrgApiKeyRecord): ApiKeyView => viewOf(record, 'org', lastFourOf(record.keyPreview));

type ProjectPath = { orgId: string; projectId: string };

/** API keys of projects and orgs: admins of the org list, create, rotate and revoke them; a new key is shown once. */
export function keyService(ctx: ContextPart<'secrets', AccountStore & KeyStore>, auth: AuthService): KeyService {
  async function projectKeyOf(claims: SessionClaims, path: ProjectPath, keyId: string): Promise<ApiKeyRecord> {
    const project = await requireProjectRole(ctx, claims, path, 'admin', 'Managing API keys');
    const key = isUuid(keyId) ? await ctx.store.getApiKey(keyId) : null;
    if (!key || key.projectId !== project.id) throw notFound('API key');
    return key;
  }

  return {
    async listProjectKeys(claims: SessionClaims, path: ProjectPath): Promise<ApiKeyView[]> {
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Managing API keys');
      return (await ctx.store.listApiKeys(project.id)).map(projectKeyView);
    },
    async createProjectKey(claims: SessionClaims, path: ProjectPath, raw: unknown): Promise<ApiKeyView & { key: string }> {
      const input = parseInput(createProjectKeySchema, raw);
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Managing API keys');
      const { key, record } = await auth.createKeyRecord(project.id, input.env, input.name ?? null);
      return { ...projectKeyView(record), key };
    },
    /** Revoke a key at once: requests with it get 401, and streams opened with it close. */
    async revokeProjectKey(claims: SessionClaims, path: ProjectPath, keyId: string): Promise<void> {
      const key = await projectKeyOf(claims, path, keyId);
      await ctx.store.revokeApiKey(key.id, nowIso());
    },
    /** A new key for the same sandbox and name; the old one is revoked. */
    async rotateProjectKey(claims: SessionClaims, path: ProjectPath, keyId: string): Promise<ApiKeyView & { key: string }> {
      const old = await projectKeyOf(claims, path, keyId);
      const { key, record } = await auth.createKeyRecord(old.projectId, old.env, old.name);
      await ctx.store.revokeApiKey(old.id, nowIso());
      return { ...projectKeyView(record), key };
    },
    async listOrgKeys(claims: SessionClaims, orgId: string): Promise<ApiKeyView[]> {
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Managing API keys');
      return (await ctx.store.listOrgApiKeys(orgId)).map(orgKeyView);
    },
    async createOrgKey(claims: SessionClaims, orgId: string, raw: unknown): Promise<ApiKeyView & { key: string }> {
      const input = parseInput(createOrgKeySchema, raw ?? {});
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Managing API keys');
      const key = generateOrgApiKey();
      const record: OrgApiKeyRecord = {
        id: newId(),
        orgId,
        name: input.name ?? null,
        keyHash: hashSecret(key),
        keyEncrypted: ctx.secrets.encrypt(key),
        keyPreview: previewSecret(key),
        createdAt: nowIso(),
        lastUsedAt: null,
        revokedAt: null,
      };
      await ctx.store.createOrgApiKey(record);
      return { ...orgKeyView(record), key };
    },
    async revokeOrgKey(claims: SessionClaims, orgId: string, keyId: string): Promise<void> {
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Managing API keys');
      const key = isUuid(keyId) ? await ctx.store.getOrgApiKey(keyId) : null;
      if (!key || key.orgId !== orgId) throw notFound('API key');
      await ctx.store.revokeApiKey(key.id, nowIso());
    },
  };
}

export type { KeyService };
