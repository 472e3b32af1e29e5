import type { IdempotencyRecord } from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import type { IdempotencyKeysTable } from './schema.ts';

/** Idempotency keys (IdempotencyStore): one row per caller and key. */

const fromRow = (r: Selectable<IdempotencyKeysTable>): IdempotencyRecord => ({
  scope: r.scope,
  key: r.key,
  fingerprint: r.fingerprint,
  state: r.state as IdempotencyRecord['state'],
  status: r.status === null ? null : Number(r.status),
  body: r.body,
  createdAt: r.created_at,
});

export async function claimIdempotencyKey(
  { db, dialect }: StoreContext,
  record: Pick<IdempotencyRecord, 'scope' | 'key' | 'fingerprint' | 'createdAt'>,
  staleBefore: { done: string; pending: string },
): Promise<IdempotencyRecord | null> {
  return db.transaction().execute(async (trx) => {
    await dialect.lockForTransaction(trx, `idempotency:${record.scope}:${record.key}`);
    const row = await trx.selectFrom('idempotency_keys').selectAll().where('scope', '=', record.scope).where('key', '=', record.key).executeTakeFirst();
    const existing = row ? fromRow(row) : null;
    const stale = existing && existing.createdAt < (existing.state === 'done' ? staleBefore.done : staleBefore.pending);
    if (existing && !stale) return existing;
    if (existing) await trx.deleteFrom('idempotency_keys').where('scope', '=', record.scope).where('key', '=', record.key).execute();
    await trx
      .insertInto('idempotency_keys')
      .values({
        scope: record.scope,
        key: record.key,
        fingerprint: record.fingerprint,
        state: 'pending',
        status: null,
        body: null,
        created_at: record.createdAt,
      })
      .execute();
    return null;
  });
}

export async function completeIdempotencyKey({ db }: StoreContext, scope: string, key: string, status: number, body: string): Promise<void> {
  await db.updateTable('idempotency_keys').set({ state: 'done', status, body }).where('scope', '=', scope).where('key', '=', key).execute();
}

export async function releaseIdempotencyKey({ db }: StoreContext, scope: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('state', '=', 'pending').execute();
}
