import type { SourceRecord, SourceRunRecord } from '@dossier/core';
import { notFound } from '@dossier/core';
import type { StoreContext } from './dialect.ts';
import { fromJson } from './rows.ts';
import type { CollectionSourcesTable, SourceRunsTable } from './schema.ts';

/** Issue 43: server-side sources and their runs. */

type SourcePatch = Partial<Omit<SourceRecord, 'id' | 'collectionId' | 'kind' | 'createdAt'>>;
type RunPatch = Partial<Omit<SourceRunRecord, 'id' | 'sourceId' | 'collectionId'>>;

const sourceFromRow = (r: CollectionSourcesTable): SourceRecord => ({
  id: r.id,
  collectionId: r.collection_id,
  kind: r.kind as SourceRecord['kind'],
  location: r.location,
  settings: fromJson<Record<string, string>>(r.settings),
  credentialsEncrypted: r.credentials_encrypted,
  intervalMinutes: r.interval_minutes === null ? null : Number(r.interval_minutes),
  maxDeleteShare: Number(r.max_delete_share),
  paused: Boolean(r.paused),
  nextRunAt: r.next_run_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

function sourcePatchToRow({ dialect }: StoreContext, p: SourcePatch): Partial<CollectionSourcesTable> {
  const row: Partial<CollectionSourcesTable> = {};
  if (p.location !== undefined) row.location = p.location;
  if (p.settings !== undefined) row.settings = dialect.json(p.settings);
  if (p.credentialsEncrypted !== undefined) row.credentials_encrypted = p.credentialsEncrypted;
  if (p.intervalMinutes !== undefined) row.interval_minutes = p.intervalMinutes;
  if (p.maxDeleteShare !== undefined) row.max_delete_share = p.maxDeleteShare;
  if (p.paused !== undefined) row.paused = dialect.bool(p.paused);
  if (p.nextRunAt !== undefined) row.next_run_at = p.nextRunAt;
  if (p.updatedAt !== undefined) row.updated_at = p.updatedAt;
  return row;
}

const runFromRow = (r: SourceRunsTable): SourceRunRecord => ({
  id: r.id,
  sourceId: r.source_id,
  collectionId: r.collection_id,
  status: r.status as SourceRunRecord['status'],
  trigger: r.trigger as SourceRunRecord['trigger'],
  added: Number(r.added),
  updated: Number(r.updated),
  deleted: Number(r.deleted),
  unchanged: Number(r.unchanged),
  failed: Number(r.failed),
  details: fromJson<SourceRunRecord['details']>(r.details),
  error: r.error,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

function runPatchToRow({ dialect }: StoreContext, p: RunPatch): Partial<SourceRunsTable> {
  const row: Partial<SourceRunsTable> = {};
  for (const key of ['status', 'added', 'updated', 'deleted', 'unchanged', 'failed', 'error'] as const) {
    if (p[key] !== undefined) (row as Record<string, unknown>)[key] = p[key];
  }
  if (p.details !== undefined) row.details = dialect.json(p.details);
  if (p.finishedAt !== undefined) row.finished_at = p.finishedAt;
  return row;
}

export async function insertSource(ctx: StoreContext, s: SourceRecord): Promise<void> {
  const row = { id: s.id, collection_id: s.collectionId, kind: s.kind, created_at: s.createdAt, ...sourcePatchToRow(ctx, s) } as CollectionSourcesTable;
  await ctx.db.insertInto('collection_sources').values(row).execute();
}

export async function getSource({ db }: StoreContext, id: string): Promise<SourceRecord | null> {
  const row = await db.selectFrom('collection_sources').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? sourceFromRow(row) : null;
}

export async function listSources({ db }: StoreContext, collectionIds: string[]): Promise<SourceRecord[]> {
  if (collectionIds.length === 0) return [];
  const rows = await db.selectFrom('collection_sources').selectAll().where('collection_id', 'in', collectionIds).orderBy('created_at').orderBy('id').execute();
  return rows.map(sourceFromRow);
}

export async function updateSource(ctx: StoreContext, id: string, patch: SourcePatch): Promise<SourceRecord> {
  const row = await ctx.db.updateTable('collection_sources').set(sourcePatchToRow(ctx, patch)).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('Source');
  return sourceFromRow(row);
}

export async function deleteSource({ db }: StoreContext, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('source_runs').where('source_id', '=', id).execute();
    await trx.deleteFrom('collection_sources').where('id', '=', id).execute();
  });
}

/** Take the run lock when it is free, expired or already the owner's (one conditional update: atomic on every dialect). */
export async function lockSource({ db }: StoreContext, id: string, owner: string, until: string): Promise<boolean> {
  const now = new Date().toISOString();
  const result = await db
    .updateTable('collection_sources')
    .set({ run_lock_owner: owner, run_lock_until: until })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('run_lock_until', 'is', null), eb('run_lock_until', '<', now), eb('run_lock_owner', '=', owner)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function unlockSource({ db }: StoreContext, id: string, owner: string): Promise<void> {
  await db
    .updateTable('collection_sources')
    .set({ run_lock_owner: null, run_lock_until: null })
    .where('id', '=', id)
    .where('run_lock_owner', '=', owner)
    .execute();
}

export async function insertSourceRun(ctx: StoreContext, r: SourceRunRecord): Promise<void> {
  const row = {
    id: r.id,
    source_id: r.sourceId,
    collection_id: r.collectionId,
    trigger: r.trigger,
    started_at: r.startedAt,
    ...runPatchToRow(ctx, r),
  } as SourceRunsTable;
  await ctx.db.insertInto('source_runs').values(row).execute();
}

export async function updateSourceRun(ctx: StoreContext, id: string, patch: RunPatch): Promise<SourceRunRecord> {
  const row = await ctx.db.updateTable('source_runs').set(runPatchToRow(ctx, patch)).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('Source run');
  return runFromRow(row);
}

export async function listSourceRuns({ db }: StoreContext, sourceId: string, limit: number): Promise<SourceRunRecord[]> {
  const rows = await db
    .selectFrom('source_runs')
    .selectAll()
    .where('source_id', '=', sourceId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(runFromRow);
}
