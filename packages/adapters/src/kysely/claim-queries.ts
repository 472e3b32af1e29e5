import type {
  ClaimMapItem,
  ClaimRecord,
  ContradictionClaimRef,
  ContradictionFilter,
  ContradictionRecord,
  ContradictionRunRecord,
  ContradictionRunStatus,
  ContradictionSeverity,
  ContradictionStatus,
  JsonValue,
} from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import type { ClaimsTable, ContradictionRunsTable, ContradictionsTable, DbJson } from './schema.ts';

/** Claims, the claim map cache, contradictions and their runs (ClaimStore). */

// A JSON column: text in SQLite, already parsed by a Postgres driver.
const parseJson = <T>(value: DbJson): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

const claimFromRow = (r: Selectable<ClaimsTable>): ClaimRecord => ({
  id: r.id,
  collectionId: r.collection_id,
  documentId: r.document_id,
  sectionId: r.section_id,
  sectionTitle: r.section_title,
  text: r.text,
  sourceText: r.source_text,
  importance: Number(r.importance),
  position: Number(r.position),
  createdAt: r.created_at,
});

export async function replaceDocumentClaims({ db }: StoreContext, documentId: string, claims: ClaimRecord[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('claims').where('document_id', '=', documentId).execute();
    const doc = await trx.selectFrom('documents').select('collection_id').where('id', '=', documentId).executeTakeFirst();
    if (!doc) return;
    for (let start = 0; start < claims.length; start += 200) {
      const rows = claims.slice(start, start + 200).map((claim) => ({
        id: claim.id,
        collection_id: claim.collectionId,
        document_id: documentId,
        section_id: claim.sectionId,
        section_title: claim.sectionTitle,
        text: claim.text,
        source_text: claim.sourceText,
        importance: claim.importance,
        position: claim.position,
        created_at: claim.createdAt,
      }));
      await trx.insertInto('claims').values(rows).execute();
    }
    const extraction = { collection_id: doc.collection_id, claim_count: claims.length, extracted_at: new Date().toISOString() };
    await trx
      .insertInto('claim_extractions')
      .values({ document_id: documentId, ...extraction })
      .onConflict((oc) => oc.column('document_id').doUpdateSet(extraction))
      .execute();
  });
}

export async function deleteDocumentClaims({ db }: StoreContext, documentId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('claims').where('document_id', '=', documentId).execute();
    await trx.deleteFrom('claim_extractions').where('document_id', '=', documentId).execute();
  });
}

export async function listDocumentClaims({ db }: StoreContext, documentId: string, minImportance: number): Promise<ClaimRecord[]> {
  const rows = await db
    .selectFrom('claims')
    .selectAll()
    .where('document_id', '=', documentId)
    .where('importance', '>=', minImportance)
    .orderBy('position')
    .execute();
  return rows.map(claimFromRow);
}

export async function listCollectionClaims({ db }: StoreContext, collectionId: string): Promise<ClaimRecord[]> {
  const rows = await db.selectFrom('claims').selectAll().where('collection_id', '=', collectionId).orderBy('document_id').orderBy('position').execute();
  return rows.map(claimFromRow);
}

export async function deleteCollectionClaims({ db }: StoreContext, collectionId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('claims').where('collection_id', '=', collectionId).execute();
    await trx.deleteFrom('claim_extractions').where('collection_id', '=', collectionId).execute();
    await trx.deleteFrom('claim_maps').where('collection_id', '=', collectionId).execute();
  });
}

export async function claimCounts({ db }: StoreContext, collectionId: string): Promise<{ documents: number; claims: number }> {
  const row = await db
    .selectFrom('claim_extractions')
    .innerJoin('documents', 'documents.id', 'claim_extractions.document_id')
    .select([(eb) => eb.fn.countAll<number>().as('documents'), (eb) => eb.fn.sum<number>('claim_extractions.claim_count').as('claims')])
    .where('claim_extractions.collection_id', '=', collectionId)
    .where('documents.status', '=', 'ready')
    .executeTakeFirst();
  return { documents: Number(row?.documents ?? 0), claims: Number(row?.claims ?? 0) };
}

export async function getClaimMap({ db }: StoreContext, collectionId: string, version: string): Promise<ClaimMapItem[] | null> {
  const row = await db.selectFrom('claim_maps').select('items').where('collection_id', '=', collectionId).where('version', '=', version).executeTakeFirst();
  return row ? parseJson<ClaimMapItem[]>(row.items) : null;
}

export async function putClaimMap({ db, dialect }: StoreContext, collectionId: string, version: string, items: ClaimMapItem[]): Promise<void> {
  const values = { version, items: dialect.json(items as unknown as JsonValue), created_at: new Date().toISOString() };
  await db
    .insertInto('claim_maps')
    .values({ collection_id: collectionId, ...values })
    .onConflict((oc) => oc.column('collection_id').doUpdateSet(values))
    .execute();
}

export async function clearClaimMap({ db }: StoreContext, collectionId: string): Promise<void> {
  await db.deleteFrom('claim_maps').where('collection_id', '=', collectionId).execute();
}

const runFromRow = (r: Selectable<ContradictionRunsTable>): ContradictionRunRecord => ({
  id: r.id,
  collectionId: r.collection_id,
  status: r.status as ContradictionRunStatus,
  claimsProcessed: r.claims_processed === null ? null : Number(r.claims_processed),
  clustersAnalyzed: r.clusters_analyzed === null ? null : Number(r.clusters_analyzed),
  contradictionsFound: r.contradictions_found === null ? null : Number(r.contradictions_found),
  model: r.model,
  startedAt: r.started_at,
  completedAt: r.completed_at,
  error: r.error,
  createdAt: r.created_at,
});

const runColumns = (run: Partial<ContradictionRunRecord>) => {
  const columns: Partial<ContradictionRunsTable> = {};
  if (run.status !== undefined) columns.status = run.status;
  if (run.claimsProcessed !== undefined) columns.claims_processed = run.claimsProcessed;
  if (run.clustersAnalyzed !== undefined) columns.clusters_analyzed = run.clustersAnalyzed;
  if (run.contradictionsFound !== undefined) columns.contradictions_found = run.contradictionsFound;
  if (run.model !== undefined) columns.model = run.model;
  if (run.startedAt !== undefined) columns.started_at = run.startedAt;
  if (run.completedAt !== undefined) columns.completed_at = run.completedAt;
  if (run.error !== undefined) columns.error = run.error;
  return columns;
};

export async function insertContradictionRun({ db }: StoreContext, run: ContradictionRunRecord): Promise<void> {
  await db
    .insertInto('contradiction_runs')
    .values({ id: run.id, collection_id: run.collectionId, created_at: run.createdAt, status: run.status, ...runColumns(run) })
    .execute();
}

export async function updateContradictionRun({ db }: StoreContext, id: string, patch: Partial<ContradictionRunRecord>): Promise<void> {
  const columns = runColumns(patch);
  if (Object.keys(columns).length > 0) await db.updateTable('contradiction_runs').set(columns).where('id', '=', id).execute();
}

export async function latestContradictionRun({ db }: StoreContext, collectionId: string): Promise<ContradictionRunRecord | null> {
  const row = await db
    .selectFrom('contradiction_runs')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? runFromRow(row) : null;
}

const contradictionFromRow = (r: Selectable<ContradictionsTable>): ContradictionRecord => ({
  id: r.id,
  collectionId: r.collection_id,
  severity: r.severity as ContradictionSeverity,
  status: r.status as ContradictionStatus,
  explanation: r.explanation,
  clusterTopicSummary: r.cluster_topic_summary,
  suggestedInstruction: r.suggested_instruction,
  claims: parseJson<ContradictionClaimRef[]>(r.claims),
  fingerprint: r.fingerprint,
  createdAt: r.created_at,
});

export async function insertContradictions({ db, dialect }: StoreContext, rows: ContradictionRecord[]): Promise<number> {
  let inserted = 0;
  await db.transaction().execute(async (trx) => {
    for (const row of rows) {
      const result = await trx
        .insertInto('contradictions')
        .values({
          id: row.id,
          collection_id: row.collectionId,
          severity: row.severity,
          status: row.status,
          explanation: row.explanation,
          cluster_topic_summary: row.clusterTopicSummary,
          suggested_instruction: row.suggestedInstruction,
          claims: dialect.json(row.claims as unknown as JsonValue),
          fingerprint: row.fingerprint,
          created_at: row.createdAt,
        })
        .onConflict((oc) => oc.columns(['collection_id', 'fingerprint']).doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) continue;
      inserted++;
      const documentIds = [...new Set(row.claims.map((claim) => claim.documentId))];
      await trx
        .insertInto('contradiction_documents')
        .values(documentIds.map((documentId) => ({ contradiction_id: row.id, document_id: documentId })))
        .execute();
    }
  });
  return inserted;
}

export async function listContradictions(
  { db }: StoreContext,
  collectionId: string,
  filter: ContradictionFilter,
  limit: number,
  offset = 0,
): Promise<{ total: number; items: ContradictionRecord[] }> {
  let query = db.selectFrom('contradictions').where('collection_id', '=', collectionId).where('status', '=', filter.status);
  if (filter.severity) query = query.where('severity', '=', filter.severity);
  const documentId = filter.documentId;
  if (documentId) {
    query = query.where('id', 'in', (eb) => eb.selectFrom('contradiction_documents').select('contradiction_id').where('document_id', '=', documentId));
  }
  const total = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
  return { total: Number(total?.n ?? 0), items: rows.map(contradictionFromRow) };
}

export async function getContradiction({ db }: StoreContext, id: string): Promise<ContradictionRecord | null> {
  const row = await db.selectFrom('contradictions').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? contradictionFromRow(row) : null;
}

export async function setContradictionStatus({ db }: StoreContext, id: string, status: ContradictionStatus): Promise<void> {
  await db.updateTable('contradictions').set({ status }).where('id', '=', id).execute();
}
