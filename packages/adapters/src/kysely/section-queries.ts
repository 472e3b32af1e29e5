import { invalid, type SectionRecord } from '@dossier/core';
import { sql } from './runtime.ts';
import { batches, writeInSlices } from './batches.ts';
import type { StoreContext } from './dialect.ts';
import { sectionFromRow, sectionToRow } from './rows.ts';

/** Sections of documents. */

/** Insert rows per statement: 11 columns × 80 rows stays under every SQLite build's parameter limit. */
const INSERT_BATCH = 80;

export async function replaceSections({ db, dialect }: StoreContext, documentId: string, sections: SectionRecord[]): Promise<void> {
  const stranger = sections.find((s) => s.documentId !== documentId);
  if (stranger) throw invalid(`Section ${stranger.id} belongs to document ${stranger.documentId}, not ${documentId}`);
  const rows = sections.map((s) => sectionToRow(s, dialect));
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sections').where('document_id', '=', documentId).execute();
    await writeInSlices(rows, INSERT_BATCH, (slice) => trx.insertInto('sections').values(slice).execute());
  });
}

/** Sections whose chunk counts one UPDATE sets (a document can have thousands; one statement each was the cost). */
const COUNT_BATCH = 200;

export async function setSectionChunkCounts({ db }: StoreContext, counts: Record<string, number>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await writeInSlices(Object.entries(counts), COUNT_BATCH, (slice) => {
      // Counts are integers, inlined as literals so both dialects type the CASE alike.
      const cases = sql.join(
        slice.map(([id, n]) => sql`when ${id} then ${sql.lit(Math.trunc(n))}`),
        sql` `,
      );
      return trx
        .updateTable('sections')
        .set({ chunk_count: sql<number>`case id ${cases} end` })
        .where(
          'id',
          'in',
          slice.map(([id]) => id),
        )
        .execute();
    });
  });
}

export async function listSections({ db }: StoreContext, documentId: string): Promise<SectionRecord[]> {
  const rows = await db.selectFrom('sections').selectAll().where('document_id', '=', documentId).orderBy('position').orderBy('id').execute();
  return rows.map(sectionFromRow);
}

export async function getSections({ db }: StoreContext, ids: string[]): Promise<SectionRecord[]> {
  const out: SectionRecord[] = [];
  for (const batch of batches([...new Set(ids)])) {
    const rows = await db.selectFrom('sections').selectAll().where('id', 'in', batch).execute();
    out.push(...rows.map(sectionFromRow));
  }
  return out;
}
