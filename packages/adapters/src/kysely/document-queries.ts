import type { DocumentFilter, DocumentListQuery, DocumentPatch, DocumentRecord, ManifestEntry } from '@dossier/core';
import { notFound } from '@dossier/core';
import type { Expression, SqlBool } from 'kysely';
import { batches } from './batches.ts';
import type { StoreContext } from './dialect.ts';
import { deleteDocumentPostings } from './duplicate-queries.ts';
import { documentFromRow, documentPatchToRow, documentToRow } from './rows.ts';
import { rowOfSlots, runStatement, statement } from './statements.ts';

/** Documents: CRUD, paging, tag and metadata filters. */

export async function insertDocument(ctx: StoreContext, doc: DocumentRecord): Promise<void> {
  const row = documentToRow(doc, ctx.dialect);
  const columns = Object.keys(row) as (keyof typeof row)[];
  await runStatement(ctx, `insertDocument ${columns}`, Object.values(row), (db, slots) =>
    db.insertInto('documents').values(rowOfSlots<typeof row>(columns, slots)),
  );
}

const selectDocument = statement('getDocument', (db, id: string) => db.selectFrom('documents').selectAll().where('id', '=', id));

export async function getDocument(ctx: StoreContext, id: string): Promise<DocumentRecord | null> {
  const [row] = await selectDocument(ctx, id);
  return row ? documentFromRow(row) : null;
}

export async function getDocuments({ db }: StoreContext, ids: string[]): Promise<DocumentRecord[]> {
  const out: DocumentRecord[] = [];
  for (const batch of batches([...new Set(ids)])) {
    const rows = await db.selectFrom('documents').selectAll().where('id', 'in', batch).execute();
    out.push(...rows.map(documentFromRow));
  }
  return out;
}

export async function listDocuments(ctx: StoreContext, collectionId: string, q: DocumentListQuery): Promise<{ documents: DocumentRecord[]; total: number }> {
  const predicates = filterPredicates(ctx, { tags: q.tags, anyTags: q.anyTags });
  let base = ctx.db.selectFrom('documents').where('collection_id', '=', collectionId).where('deleted_at', 'is', null);
  if (q.status !== undefined) base = base.where('status', '=', q.status);
  if (predicates.length > 0) base = base.where((eb) => eb.and(predicates));
  const rows = await base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute();
  const count = await base.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
  return { documents: rows.map(documentFromRow), total: Number(count.total) };
}

/** Predicates for a filter; empty lists and an empty metadata object constrain nothing. */
function filterPredicates({ dialect }: StoreContext, filter: DocumentFilter): Expression<SqlBool>[] {
  const predicates = (filter.tags ?? []).map((tag) => dialect.hasTag(tag));
  if (filter.anyTags && filter.anyTags.length > 0) predicates.push(dialect.hasAnyTag(filter.anyTags));
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    predicates.push(dialect.metadataEquals(key, value));
  }
  return predicates;
}

export async function findDocuments(ctx: StoreContext, collectionId: string, filter: DocumentFilter): Promise<DocumentRecord[]> {
  const predicates = filterPredicates(ctx, filter);
  const rows = await ctx.db
    .selectFrom('documents')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('deleted_at', 'is', null)
    .$if(predicates.length > 0, (qb) => qb.where((eb) => eb.and(predicates)))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(documentFromRow);
}

export async function findDocumentByHash({ db }: StoreContext, collectionId: string, contentHash: string): Promise<DocumentRecord | null> {
  const row = await db
    .selectFrom('documents')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('content_hash', '=', contentHash)
    .where('status', '<>', 'error')
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return row ? documentFromRow(row) : null;
}

export async function updateDocument(ctx: StoreContext, id: string, patch: DocumentPatch): Promise<DocumentRecord> {
  const row = { ...documentPatchToRow(patch, ctx.dialect), updated_at: new Date().toISOString() };
  const columns = Object.keys(row) as (keyof typeof row)[];
  // RETURNING (SQLite 3.35+, Postgres): the updated row in the same statement, not a second read.
  const [updated] = await runStatement(ctx, `updateDocument ${columns}`, [...Object.values(row), id], (db, slots) =>
    db
      .updateTable('documents')
      .set(rowOfSlots<typeof row>(columns, slots))
      .where('id', '=', slots[columns.length] as string)
      .returningAll(),
  );
  if (!updated) throw notFound(`Document ${id}`);
  return documentFromRow(updated);
}

export async function deleteDocument({ db, dialect }: StoreContext, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await deleteDocumentPostings({ db: trx, dialect }, [id]); // its other duplicate rows cascade
    await trx.deleteFrom('sections').where('document_id', '=', id).execute();
    await trx.deleteFrom('documents').where('id', '=', id).execute();
  });
}

export async function hasMetadata({ db, dialect }: StoreContext, collectionId: string): Promise<boolean> {
  const row = await db.selectFrom('documents').select('id').where('collection_id', '=', collectionId).where(dialect.hasMetadata()).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Issue 43: the live document that came from a source path. */
export async function findDocumentBySourcePath({ db }: StoreContext, collectionId: string, sourcePath: string): Promise<DocumentRecord | null> {
  const row = await db
    .selectFrom('documents')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('source_path', '=', sourcePath)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? documentFromRow(row) : null;
}

/** Issue 43: a page of the collection's source manifest, by path (keyset paging on the unique path index). */
export async function listSourceManifest(
  { db }: StoreContext,
  collectionId: string,
  after: string | null,
  limit: number,
  prefix?: string,
): Promise<ManifestEntry[]> {
  const rows = await db
    .selectFrom('documents')
    .select(['id', 'source_path', 'source_stamp', 'content_hash', 'version', 'status', 'updated_at'])
    .where('collection_id', '=', collectionId)
    .where('source_path', 'is not', null)
    .where('deleted_at', 'is', null)
    .$if(after !== null, (qb) => qb.where('source_path', '>', after!))
    .$if(prefix !== undefined && prefix !== '', (qb) => qb.where('source_path', '>=', prefix!).where('source_path', '<', `${prefix}\u{10FFFF}`))
    .orderBy('source_path')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    path: r.source_path!,
    hash: r.content_hash,
    stamp: r.source_stamp,
    documentId: r.id,
    version: Number(r.version),
    status: r.status as DocumentRecord['status'],
    updatedAt: r.updated_at,
  }));
}

/** Issue 43: soft-deleted documents whose grace period is over. */
export async function listSoftDeletedDocuments({ db }: StoreContext, before: string, limit: number): Promise<DocumentRecord[]> {
  const rows = await db
    .selectFrom('documents')
    .selectAll()
    .where('deleted_at', 'is not', null)
    .where('deleted_at', '<', before)
    .orderBy('deleted_at')
    .limit(limit)
    .execute();
  return rows.map(documentFromRow);
}
