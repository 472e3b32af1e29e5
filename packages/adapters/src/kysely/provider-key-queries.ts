import type { Env, KeyedProvider, ProviderKeyRecord } from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import { sql } from './runtime.ts';
import type { ProviderKeysTable } from './schema.ts';
import { statement } from './statements.ts';

/** A project's own model provider keys (ciphertext only; sealing is core's job). */

const fromRow = (r: Selectable<ProviderKeysTable>): ProviderKeyRecord => ({
  id: r.id,
  projectId: r.project_id,
  env: r.env as Env,
  provider: r.provider as KeyedProvider,
  name: r.name,
  keyEncrypted: r.key_encrypted,
  keyPreview: r.key_preview,
  createdAt: r.created_at,
});

export async function createProviderKey({ db }: StoreContext, k: ProviderKeyRecord): Promise<void> {
  await db
    .insertInto('provider_keys')
    .values({
      id: k.id,
      project_id: k.projectId,
      env: k.env,
      provider: k.provider,
      name: k.name,
      key_encrypted: k.keyEncrypted,
      key_preview: k.keyPreview,
      created_at: k.createdAt,
    })
    .execute();
}

const selectKeys = statement('listProviderKeys', (db, projectId: string, env: Env) =>
  db.selectFrom('provider_keys').selectAll().where('project_id', '=', projectId).where('env', '=', env).orderBy('created_at', 'desc').orderBy('id', 'desc'),
);

/** Read once per ready document (the model resolver's hasProvider). */
export async function listProviderKeys(ctx: StoreContext, projectId: string, env: Env): Promise<ProviderKeyRecord[]> {
  return (await selectKeys(ctx, projectId, env)).map(fromRow);
}

export async function getProviderKey({ db }: StoreContext, id: string): Promise<ProviderKeyRecord | null> {
  const row = await db.selectFrom('provider_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? fromRow(row) : null;
}

export async function deleteProviderKey({ db }: StoreContext, id: string): Promise<void> {
  await db.deleteFrom('provider_keys').where('id', '=', id).execute();
}

const selectKeyFor = statement('findProviderKeyFor', (db, projectId: string, env: Env, provider: KeyedProvider) =>
  db
    .selectFrom('provider_keys')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('env', '=', env)
    .where('provider', '=', provider)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    // A literal: SQLite plans with a bound LIMIT's value, so it prepared the statement again on every run (10 µs, not 2).
    .limit(sql.lit(1)),
);

export async function findProviderKeyFor(ctx: StoreContext, projectId: string, env: Env, provider: KeyedProvider): Promise<ProviderKeyRecord | null> {
  const [row] = await selectKeyFor(ctx, projectId, env, provider);
  return row ? fromRow(row) : null;
}
