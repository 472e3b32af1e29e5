import type {
  AgentContradictionFlag,
  AgentRunRecord,
  AgentRunSource,
  AgentRunStatus,
  AgentRunStepRecord,
  AgentSnapshot,
  AgentStepKind,
  JsonValue,
  RunUsage,
  ServiceEvent,
} from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import { fromJson } from './rows.ts';
import type { AgentRunStepsTable, AgentRunsTable } from './schema.ts';
import { insertEvents } from './webhook-queries.ts';

/** Agent runs and their steps (AgentStore). */

function runFromRow(r: Selectable<AgentRunsTable>): AgentRunRecord {
  const run: AgentRunRecord = {
    id: r.id,
    agentId: r.agent_id,
    projectId: r.project_id,
    query: r.query,
    documentId: r.document_id,
    status: r.status as AgentRunStatus,
    response: r.response,
    sources: fromJson<AgentRunSource[]>(r.sources),
    contradictionFlags: fromJson<AgentContradictionFlag[]>(r.contradiction_flags),
    warnings: fromJson<string[]>(r.warnings),
    iterationsUsed: Number(r.iterations_used),
    error: r.error,
    usage: r.usage === null ? null : fromJson<RunUsage>(r.usage),
    agentSnapshot: fromJson<AgentSnapshot>(r.agent_snapshot),
    createdBy: r.created_by,
    createdAt: r.created_at,
    completedAt: r.completed_at,
  };
  if (r.structured_output !== null) run.structuredOutput = fromJson<{ value: unknown }>(r.structured_output).value;
  return run;
}

/** The columns that change as a run ends (all but its identity). */
function outcomeColumns({ dialect }: StoreContext, run: AgentRunRecord) {
  const json = (value: unknown) => dialect.json(value as JsonValue);
  return {
    status: run.status,
    response: run.response,
    sources: json(run.sources),
    contradiction_flags: json(run.contradictionFlags),
    warnings: json(run.warnings),
    structured_output: run.structuredOutput === undefined ? null : json({ value: run.structuredOutput }),
    iterations_used: run.iterationsUsed,
    error: run.error,
    usage: run.usage === null ? null : json(run.usage),
    completed_at: run.completedAt,
  };
}

export async function insertAgentRun(store: StoreContext, run: AgentRunRecord): Promise<void> {
  await store.db
    .insertInto('agent_runs')
    .values({
      id: run.id,
      agent_id: run.agentId,
      project_id: run.projectId,
      query: run.query,
      document_id: run.documentId,
      agent_snapshot: store.dialect.json(run.agentSnapshot as unknown as JsonValue),
      created_by: run.createdBy,
      created_at: run.createdAt,
      ...outcomeColumns(store, run),
    })
    .execute();
}

const stepRow = ({ dialect }: StoreContext, step: AgentRunStepRecord): AgentRunStepsTable => ({
  run_id: step.runId,
  step_index: step.stepIndex,
  kind: step.kind,
  tool: step.tool,
  collection_id: step.collectionId,
  content: dialect.json(step.content as JsonValue),
  created_at: step.createdAt,
});

export async function finishAgentRun(store: StoreContext, run: AgentRunRecord, steps: AgentRunStepRecord[], events: ServiceEvent[]): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    const inTx = { ...store, db: trx };
    const exists = await trx.selectFrom('agent_runs').select('id').where('id', '=', run.id).executeTakeFirst();
    if (!exists) return; // deleted while it ran (its agent too, perhaps): nothing to record
    await insertEvents(inTx, events);
    await inTx.db.updateTable('agent_runs').set(outcomeColumns(inTx, run)).where('id', '=', run.id).execute();
    await inTx.db.deleteFrom('agent_run_steps').where('run_id', '=', run.id).execute();
    for (let from = 0; from < steps.length; from += 200) {
      await inTx.db
        .insertInto('agent_run_steps')
        .values(steps.slice(from, from + 200).map((step) => stepRow(inTx, step)))
        .execute();
    }
  });
}

export async function getAgentRun({ db }: StoreContext, id: string): Promise<AgentRunRecord | null> {
  const row = await db.selectFrom('agent_runs').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? runFromRow(row) : null;
}

export async function listAgentRuns(
  { db }: StoreContext,
  agentId: string,
  page: { limit: number; offset: number; status?: AgentRunStatus },
): Promise<{ runs: AgentRunRecord[]; hasMore: boolean }> {
  let query = db.selectFrom('agent_runs').selectAll().where('agent_id', '=', agentId);
  if (page.status) query = query.where('status', '=', page.status);
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
  return { runs: rows.slice(0, page.limit).map(runFromRow), hasMore: rows.length > page.limit };
}

const stepFromRow = (r: Selectable<AgentRunStepsTable>): AgentRunStepRecord => ({
  runId: r.run_id,
  stepIndex: Number(r.step_index),
  kind: r.kind as AgentStepKind,
  tool: r.tool,
  collectionId: r.collection_id,
  content: fromJson<Record<string, unknown>>(r.content),
  createdAt: r.created_at,
});

export async function listAgentRunSteps(
  { db }: StoreContext,
  runId: string,
  page: { limit: number; offset: number },
): Promise<{ steps: AgentRunStepRecord[]; hasMore: boolean }> {
  const rows = await db
    .selectFrom('agent_run_steps')
    .selectAll()
    .where('run_id', '=', runId)
    .orderBy('step_index', 'asc')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
  return { steps: rows.slice(0, page.limit).map(stepFromRow), hasMore: rows.length > page.limit };
}

export async function deleteAgentRun({ db }: StoreContext, id: string): Promise<void> {
  await db.deleteFrom('agent_runs').where('id', '=', id).execute();
}

export async function failStaleAgentRuns({ db }: StoreContext, before: string, error: string): Promise<number> {
  const result = await db
    .updateTable('agent_runs')
    .set({ status: 'failed', error, completed_at: new Date().toISOString() })
    .where('status', '=', 'running')
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
