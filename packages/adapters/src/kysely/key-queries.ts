import type { ApiKeyRecord, OrgApiKeyRecord } from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import { apiKeyFromRow } from './rows.ts';
import type { OrgApiKeysTable } from './schema.ts';

/** API key management (KeyStore): listing, revocation and last use of project keys, and org-scoped keys. */

export async function listApiKeys({ db }: StoreContext, projectId: string): Promise<ApiKeyRecord[]> {
  const rows = await db.selectFrom('api_keys').selectAll().where('project_id', '=', projectId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map(apiKeyFromRow);
}

export async function getApiKey({ db }: StoreContext, id: string): Promise<ApiKeyRecord | null> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? apiKeyFromRow(row) : null;
}

export async function revokeApiKey({ db }: StoreContext, id: string, at: string): Promise<void> {
  for (const table of ['api_keys', 'org_api_keys'] as const) {
    await db.updateTable(table).set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }
}

export async function touchApiKey({ db }: StoreContext, id: string, at: string): Promise<void> {
  for (const table of ['api_keys', 'org_api_keys'] as const) await db.updateTable(table).set({ last_used_at: at }).where('id', '=', id).execute();
}

const orgKeyFromRow = (r: Selectable<OrgApiKeysTable>): OrgApiKeyRecord => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  keyHash: r.key_hash,
  keyEncrypted: r.key_encrypted,
  keyPreview: r.key_preview,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export async function createOrgApiKey({ db }: StoreContext, k: OrgApiKeyRecord): Promise<void> {
  await db
    .insertInto('org_api_keys')
    .values({
      id: k.id,
      org_id: k.orgId,
      name: k.name,
      key_hash: k.keyHash,
      key_encrypted: k.keyEncrypted,
      key_preview: k.keyPreview,
      created_at: k.createdAt,
      last_used_at: k.lastUsedAt,
      revoked_at: k.revokedAt,
    })
    .execute();
}

export async function findOrgApiKeyByHash({ db }: StoreContext, keyHash: string): Promise<OrgApiKeyRecord | null> {
  const row = await db.selectFrom('org_api_keys').selectAll().where('key_hash', '=', keyHash).where('revoked_at', 'is', null).executeTakeFirst();
  return row ? orgKeyFromRow(row) : null;
}

export async function listOrgApiKeys({ db }: StoreContext, orgId: string): Promise<OrgApiKeyRecord[]> {
  const rows = await db.selectFrom('org_api_keys').selectAll().where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map(orgKeyFromRow);
}

export async function getOrgApiKey({ db }: StoreContext, id: string): Promise<OrgApiKeyRecord | null> {
  const row = await db.selectFrom('org_api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? orgKeyFromRow(row) : null;
}
