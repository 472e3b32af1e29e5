import type { Collection, CollectionCounts, CollectionPatch, Env } from '@dossier/core';
import { notFound } from '@dossier/core';
import { sql } from './runtime.ts';
import type { StoreContext } from './dialect.ts';
import { captionedCount } from './enrich-queries.ts';
import { collectionFromRow, collectionPatchToRow, collectionToRow } from './rows.ts';
import { statement } from './statements.ts';

/** Collections and the aggregates behind their stats. */

export async function insertCollection({ db, dialect }: StoreContext, collection: Collection): Promise<void> {
  await db.insertInto('collections').values(collectionToRow(collection, dialect)).execute();
}

const selectCollection = statement('getCollection', (db, id: string) => db.selectFrom('collections').selectAll().where('id', '=', id));

export async function getCollection(ctx: StoreContext, id: string): Promise<Collection | null> {
  const [row] = await selectCollection(ctx, id);
  return row ? collectionFromRow(row) : null;
}

export async function listCollections({ db }: StoreContext, projectId: string, env: Env): Promise<Collection[]> {
  const rows = await db
    .selectFrom('collections')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('env', '=', env)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(collectionFromRow);
}

export async function updateCollection(ctx: StoreContext, id: string, patch: CollectionPatch): Promise<Collection> {
  const row = collectionPatchToRow(patch, ctx.dialect);
  if (Object.keys(row).length > 0) {
    await ctx.db.updateTable('collections').set(row).where('id', '=', id).execute();
  }
  const updated = await getCollection(ctx, id);
  if (!updated) throw notFound(`Collection ${id}`);
  return updated;
}

async function documentTotals({ db }: StoreContext, collectionId: string) {
  const row = await db
    .selectFrom('documents')
    .select((eb) => [
      // Soft-deleted documents (issue 43) are not counted, but their files are until they are purged.
      sql<number>`coalesce(sum(case when deleted_at is null then 1 else 0 end), 0)`.as('docs'),
      eb.fn.coalesce(eb.fn.sum('file_size_bytes'), eb.lit(0)).as('bytes'),
      eb.fn.coalesce(eb.fn.sum('derived_bytes'), eb.lit(0)).as('derived'),
      eb.fn.coalesce(eb.fn.sum('chunk_count'), eb.lit(0)).as('chunks'),
    ])
    .where('collection_id', '=', collectionId)
    .executeTakeFirstOrThrow();
  const totalFileSizeBytes = Number(row.bytes);
  return { docCount: Number(row.docs), totalFileSizeBytes, storageBytes: totalFileSizeBytes + Number(row.derived), totalChunks: Number(row.chunks) };
}

async function statusCounts({ db }: StoreContext, collectionId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('documents')
    .select((eb) => ['status', eb.fn.countAll().as('count')])
    .where('collection_id', '=', collectionId)
    .where('deleted_at', 'is', null)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
}

async function sectionTotal({ db }: StoreContext, collectionId: string): Promise<number> {
  const row = await db
    .selectFrom('sections')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('collection_id', '=', collectionId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Ready documents with at least one AI-generated section summary. */
async function summarizedCount({ db }: StoreContext, collectionId: string): Promise<number> {
  const row = await db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('collection_id', '=', collectionId)
    .where('status', '=', 'ready')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('sections').select('sections.id').whereRef('sections.document_id', '=', 'documents.id').where('sections.summary_type', '=', 'generated'),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function collectionCounts(ctx: StoreContext, collectionId: string): Promise<CollectionCounts> {
  const [totals, statuses, totalSections, summarized, captioned] = await Promise.all([
    documentTotals(ctx, collectionId),
    statusCounts(ctx, collectionId),
    sectionTotal(ctx, collectionId),
    summarizedCount(ctx, collectionId),
    captionedCount(ctx, collectionId),
  ]);
  return { ...totals, totalSections, statusCounts: statuses, summarizedCount: summarized, captionedCount: captioned };
}
