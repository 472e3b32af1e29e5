import type { EvaluationGuardRecord, EvaluationRunRecord, GoldenProposalRecord, GoldenSetRecord, JsonValue } from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import type { EvaluationRunsTable, GoldenProposalsTable, GoldenSetsTable } from './schema.ts';

/** Issue 38: golden sets (one row per version), evaluation runs and guards. */

/** A JSON column: text in SQLite, already parsed by a Postgres driver. */
const fromJson = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

const setFromRow = (r: Selectable<GoldenSetsTable>): GoldenSetRecord => ({
  id: r.id,
  version: Number(r.version),
  collectionId: r.collection_id,
  name: r.name,
  matchBy: r.match_by as GoldenSetRecord['matchBy'],
  queries: fromJson(r.queries) as GoldenSetRecord['queries'],
  createdAt: r.created_at,
});

const runFromRow = (r: Selectable<EvaluationRunsTable>): EvaluationRunRecord => ({
  id: r.id,
  collectionId: r.collection_id,
  setId: r.set_id,
  setVersion: Number(r.set_version),
  trigger: r.trigger as EvaluationRunRecord['trigger'],
  settings: fromJson(r.settings) as EvaluationRunRecord['settings'],
  status: r.status as EvaluationRunRecord['status'],
  error: r.error,
  metrics: fromJson(r.metrics) as EvaluationRunRecord['metrics'],
  perQuery: fromJson(r.per_query) as EvaluationRunRecord['perQuery'],
  progress: r.progress === null ? null : (JSON.parse(r.progress) as EvaluationRunRecord['progress']),
  shadowIndex: r.shadow_index,
  createdAt: r.created_at,
});

export async function insertGoldenSet({ db, dialect }: StoreContext, s: GoldenSetRecord): Promise<void> {
  await db
    .insertInto('golden_sets')
    .values({
      id: s.id,
      version: s.version,
      collection_id: s.collectionId,
      name: s.name,
      match_by: s.matchBy,
      queries: dialect.json(s.queries as unknown as JsonValue),
      created_at: s.createdAt,
    })
    .execute();
}

export async function getGoldenSet({ db }: StoreContext, id: string, version?: number): Promise<GoldenSetRecord | null> {
  let q = db.selectFrom('golden_sets').selectAll().where('id', '=', id);
  if (version !== undefined) q = q.where('version', '=', version);
  const row = await q.orderBy('version', 'desc').limit(1).executeTakeFirst();
  return row ? setFromRow(row) : null;
}

export async function listGoldenSets({ db }: StoreContext, collectionId: string): Promise<GoldenSetRecord[]> {
  const rows = await db
    .selectFrom('golden_sets as g')
    .selectAll('g')
    .where('g.collection_id', '=', collectionId)
    .where(({ eb, selectFrom }) =>
      eb(
        'g.version',
        '=',
        selectFrom('golden_sets as newer')
          .select(({ fn }) => fn.max('newer.version').as('v'))
          .whereRef('newer.id', '=', 'g.id'),
      ),
    )
    .orderBy('g.created_at', 'asc')
    .orderBy('g.id', 'asc')
    .execute();
  return rows.map(setFromRow);
}

export async function deleteGoldenSet({ db }: StoreContext, id: string): Promise<void> {
  await db.deleteFrom('golden_sets').where('id', '=', id).execute();
}

export async function insertEvaluationRun({ db, dialect }: StoreContext, r: EvaluationRunRecord): Promise<void> {
  await db
    .insertInto('evaluation_runs')
    .values({
      id: r.id,
      collection_id: r.collectionId,
      set_id: r.setId,
      set_version: r.setVersion,
      trigger: r.trigger,
      settings: dialect.json(r.settings as unknown as JsonValue),
      metrics: dialect.json(r.metrics as unknown as JsonValue),
      per_query: dialect.json(r.perQuery as unknown as JsonValue),
      created_at: r.createdAt,
      status: r.status,
      error: r.error,
      progress: r.progress === null ? null : JSON.stringify(r.progress),
      shadow_index: r.shadowIndex,
    })
    .execute();
}

export async function updateEvaluationRun(
  { db, dialect }: StoreContext,
  id: string,
  p: Partial<Pick<EvaluationRunRecord, 'status' | 'error' | 'metrics' | 'perQuery' | 'progress' | 'shadowIndex'>>,
): Promise<void> {
  const set: Partial<Record<'status' | 'error' | 'metrics' | 'per_query' | 'progress' | 'shadow_index', unknown>> = {};
  if (p.status !== undefined) set.status = p.status;
  if (p.error !== undefined) set.error = p.error;
  if (p.metrics !== undefined) set.metrics = dialect.json(p.metrics as unknown as JsonValue);
  if (p.perQuery !== undefined) set.per_query = dialect.json(p.perQuery as unknown as JsonValue);
  if (p.progress !== undefined) set.progress = p.progress === null ? null : JSON.stringify(p.progress);
  if (p.shadowIndex !== undefined) set.shadow_index = p.shadowIndex;
  if (Object.keys(set).length === 0) return;
  await db
    .updateTable('evaluation_runs')
    .set(set as never)
    .where('id', '=', id)
    .execute();
}

export async function getEvaluationRun({ db }: StoreContext, id: string): Promise<EvaluationRunRecord | null> {
  const row = await db.selectFrom('evaluation_runs').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? runFromRow(row) : null;
}

export async function listEvaluationRuns({ db }: StoreContext, collectionId: string, limit: number): Promise<EvaluationRunRecord[]> {
  const rows = await db
    .selectFrom('evaluation_runs')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(runFromRow);
}

export async function getEvaluationGuard({ db }: StoreContext, collectionId: string): Promise<EvaluationGuardRecord | null> {
  const r = await db.selectFrom('evaluation_guards').selectAll().where('collection_id', '=', collectionId).executeTakeFirst();
  return r ? { collectionId: r.collection_id, setId: r.set_id, maxNdcgDrop: Number(r.max_ndcg_drop), updatedAt: r.updated_at } : null;
}

export async function putEvaluationGuard({ db }: StoreContext, g: EvaluationGuardRecord): Promise<void> {
  await db
    .insertInto('evaluation_guards')
    .values({ collection_id: g.collectionId, set_id: g.setId, max_ndcg_drop: g.maxNdcgDrop, updated_at: g.updatedAt })
    .onConflict((oc) => oc.column('collection_id').doUpdateSet({ set_id: g.setId, max_ndcg_drop: g.maxNdcgDrop, updated_at: g.updatedAt }))
    .execute();
}

export async function deleteEvaluationGuard({ db }: StoreContext, collectionId: string): Promise<void> {
  await db.deleteFrom('evaluation_guards').where('collection_id', '=', collectionId).execute();
}

const proposalFromRow = (r: Selectable<GoldenProposalsTable>): GoldenProposalRecord => ({
  id: r.id,
  collectionId: r.collection_id,
  documentId: r.document_id,
  sectionId: r.section_id,
  sectionTitle: r.section_title,
  excerpt: r.excerpt,
  question: r.question,
  status: r.status as GoldenProposalRecord['status'],
  setId: r.set_id,
  setVersion: r.set_version === null ? null : Number(r.set_version),
  createdAt: r.created_at,
  decidedAt: r.decided_at,
});

export async function insertGoldenProposals({ db }: StoreContext, proposals: GoldenProposalRecord[]): Promise<void> {
  if (proposals.length === 0) return;
  await db
    .insertInto('golden_proposals')
    .values(
      proposals.map((p) => ({
        id: p.id,
        collection_id: p.collectionId,
        document_id: p.documentId,
        section_id: p.sectionId,
        section_title: p.sectionTitle,
        excerpt: p.excerpt,
        question: p.question,
        status: p.status,
        set_id: p.setId,
        set_version: p.setVersion,
        created_at: p.createdAt,
        decided_at: p.decidedAt,
      })),
    )
    .execute();
}

export async function getGoldenProposal({ db }: StoreContext, id: string): Promise<GoldenProposalRecord | null> {
  const row = await db.selectFrom('golden_proposals').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? proposalFromRow(row) : null;
}

export async function listGoldenProposals(
  { db }: StoreContext,
  collectionId: string,
  status?: GoldenProposalRecord['status'],
): Promise<GoldenProposalRecord[]> {
  let q = db.selectFrom('golden_proposals').selectAll().where('collection_id', '=', collectionId);
  if (status) q = q.where('status', '=', status);
  return (await q.orderBy('created_at', 'asc').orderBy('id', 'asc').execute()).map(proposalFromRow);
}

export async function decideGoldenProposal(
  { db }: StoreContext,
  id: string,
  d: Pick<GoldenProposalRecord, 'status' | 'question' | 'setId' | 'setVersion' | 'decidedAt'>,
): Promise<boolean> {
  const result = await db
    .updateTable('golden_proposals')
    .set({ status: d.status, question: d.question, set_id: d.setId, set_version: d.setVersion, decided_at: d.decidedAt })
    .where('id', '=', id)
    .where('status', '=', 'proposed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
