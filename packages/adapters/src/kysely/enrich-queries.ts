import type { SectionRecord } from '@dossier/core';
import { sql } from './runtime.ts';
import type { StoreContext } from './dialect.ts';
import { sectionFromRow } from './rows.ts';

/** What the post-ready model jobs write: AI section summaries and image/table captions. */

export async function setGeneratedSummary({ db }: StoreContext, sectionId: string, summary: string): Promise<void> {
  await db
    .updateTable('sections')
    .set({
      // Keep the extractive summary aside the first time; a second AI summary must not overwrite it.
      extractive_summary: sql<string | null>`case when summary_type = 'generated' then extractive_summary else summary end`,
      summary,
      summary_type: 'generated',
    })
    .where('id', '=', sectionId)
    .execute();
}

export async function resetGeneratedSummaries({ db }: StoreContext, collectionId: string): Promise<SectionRecord[]> {
  return db.transaction().execute(async (trx) => {
    const ids = await trx.selectFrom('sections').select('id').where('collection_id', '=', collectionId).where('summary_type', '=', 'generated').execute();
    if (ids.length === 0) return [];
    await trx
      .updateTable('sections')
      .set({
        summary: sql<string | null>`extractive_summary`,
        summary_type: sql<string | null>`case when extractive_summary is null then null else 'extractive' end`,
        extractive_summary: null,
      })
      .where('collection_id', '=', collectionId)
      .where('summary_type', '=', 'generated')
      .execute();
    const rows = await trx.selectFrom('sections').selectAll().where('collection_id', '=', collectionId).execute();
    const changed = new Set(ids.map((r) => r.id));
    return rows.filter((r) => changed.has(r.id)).map(sectionFromRow);
  });
}

export async function setImageCaption({ db }: StoreContext, imageId: string, caption: string): Promise<void> {
  await db.updateTable('document_images').set({ caption }).where('id', '=', imageId).execute();
}

export async function setTableChunkCaption({ db }: StoreContext, chunkId: string, caption: string): Promise<void> {
  await db.updateTable('table_chunks').set({ caption }).where('chunk_id', '=', chunkId).execute();
}

/** Documents of the collection that have at least one captioned image or table chunk. */
function captionedDocuments(db: StoreContext['db'], collectionId: string) {
  return db
    .selectFrom('documents')
    .select('documents.id')
    .where('documents.collection_id', '=', collectionId)
    .where(({ exists, or, selectFrom }) =>
      or([
        exists(
          selectFrom('document_images')
            .select('document_images.id')
            .whereRef('document_images.document_id', '=', 'documents.id')
            .where('document_images.caption', 'is not', null),
        ),
        exists(
          selectFrom('table_chunks')
            .select('table_chunks.chunk_id')
            .whereRef('table_chunks.document_id', '=', 'documents.id')
            .where('table_chunks.caption', 'is not', null),
        ),
      ]),
    );
}

export async function resetCaptions({ db }: StoreContext, collectionId: string): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const docs = (await captionedDocuments(trx, collectionId).execute()).map((r) => r.id);
    if (docs.length === 0) return [];
    const inCollection = trx.selectFrom('documents').select('id').where('collection_id', '=', collectionId);
    await trx.updateTable('document_images').set({ caption: null }).where('document_id', 'in', inCollection).execute();
    await trx.updateTable('table_chunks').set({ caption: null }).where('document_id', 'in', inCollection).execute();
    return docs;
  });
}

/** Ready documents with at least one caption: each caption is written after its caption chunk (see core enrich/). */
export async function captionedCount({ db }: StoreContext, collectionId: string): Promise<number> {
  const row = await db
    .selectFrom(captionedDocuments(db, collectionId).where('documents.status', '=', 'ready').as('captioned'))
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
