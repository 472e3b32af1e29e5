import { invalid, type SectionRecord } from '@dossier/core';
import { sql } from './runtime.ts';
import { batches, writeInSlices } from './batches.ts';
import type { StoreContext } from './dialect.ts';
import { sectionFromRow, sectionToRow } from './rows.ts';
import { replaceDocumentRows, runStatement, statement, transaction } from './statements.ts';

/** Sections of documents. */

/** Insert rows per statement: 11 columns × 80 rows stays under every SQLite build's parameter limit. */
const INSERT_BATCH = 80;

export async function replaceSections(ctx: StoreContext, documentId: string, sections: SectionRecord[]): Promise<void> {
  const stranger = sections.find((s) => s.documentId !== documentId);
  if (stranger) throw invalid(`Section ${stranger.id} belongs to document ${stranger.documentId}, not ${documentId}`);
  const rows = sections.map((s) => sectionToRow(s, ctx.dialect));
  await replaceDocumentRows(ctx, documentId, deleteSections, 'sections', rows, INSERT_BATCH);
}

const deleteSections = statement('deleteSections', (db, documentId: string) => db.deleteFrom('sections').where('document_id', '=', documentId));

/** Sections whose chunk counts one UPDATE sets (a document can have thousands; one statement each was the cost). */
const COUNT_BATCH = 200;

export async function setSectionChunkCounts(ctx: StoreContext, counts: Record<string, number>): Promise<void> {
  const entries = Object.entries(counts);
  // One statement is atomic by itself: a transaction (a savepoint in SQLite's write group) only for several.
  if (entries.length <= COUNT_BATCH) {
    if (entries.length > 0) await setCounts(ctx, entries);
    return;
  }
  await transaction(ctx, (tx) => writeInSlices(entries, COUNT_BATCH, (slice) => setCounts(tx, slice)));
}

function setCounts(ctx: StoreContext, slice: [string, number][]): Promise<unknown> {
  const values = [...slice.flatMap(([id, n]) => [id, Math.trunc(n)]), ...slice.map(([id]) => id)];
  return runStatement(ctx, `setSectionChunkCounts ${slice.length}`, values, (db, slots) => {
    // Counts are cast to integer so both dialects type the CASE alike (Postgres would take a bare parameter for text).
    const cases = sql.join(
      slice.map((_, i) => sql`when ${slots[2 * i]} then cast(${slots[2 * i + 1]} as integer)`),
      sql` `,
    );
    return db
      .updateTable('sections')
      .set({ chunk_count: sql<number>`case id ${cases} end` })
      .where('id', 'in', slots.slice(2 * slice.length) as string[]);
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
