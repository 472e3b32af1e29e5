import { type AgentPatch, type AgentRecord, type AgentToolset, DossierError, type JsonSchemaObject, type JsonValue } from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import { fromJson } from './rows.ts';
import type { AgentsTable } from './schema.ts';

/** Hosted agents (AgentStore). */

const agentFromRow = (r: Selectable<AgentsTable>): AgentRecord => ({
  id: r.id,
  projectId: r.project_id,
  slug: r.slug,
  name: r.name,
  description: r.description,
  systemPrompt: r.system_prompt,
  model: r.model,
  timeoutMs: Number(r.timeout_ms),
  toolset: fromJson<AgentToolset>(r.toolset),
  allowedCollectionIds: r.allowed_collection_ids === null ? null : fromJson<string[]>(r.allowed_collection_ids),
  outputSchema: r.output_schema === null ? null : fromJson<JsonSchemaObject>(r.output_schema),
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The columns a patch writes (only the keys it has). */
function patchColumns({ dialect }: StoreContext, patch: AgentPatch): Partial<Selectable<AgentsTable>> {
  const json = (value: unknown) => dialect.json(value as JsonValue);
  const columns: Partial<Selectable<AgentsTable>> = {};
  if (patch.slug !== undefined) columns.slug = patch.slug;
  if (patch.name !== undefined) columns.name = patch.name;
  if (patch.description !== undefined) columns.description = patch.description;
  if (patch.systemPrompt !== undefined) columns.system_prompt = patch.systemPrompt;
  if (patch.model !== undefined) columns.model = patch.model;
  if (patch.timeoutMs !== undefined) columns.timeout_ms = patch.timeoutMs;
  if (patch.toolset !== undefined) columns.toolset = json(patch.toolset);
  if (patch.allowedCollectionIds !== undefined) columns.allowed_collection_ids = patch.allowedCollectionIds === null ? null : json(patch.allowedCollectionIds);
  if (patch.outputSchema !== undefined) columns.output_schema = patch.outputSchema === null ? null : json(patch.outputSchema);
  if (patch.updatedAt !== undefined) columns.updated_at = patch.updatedAt;
  return columns;
}

/** A unique-slug violation as the port's conflict; anything else unchanged. */
function slugConflict(store: StoreContext, err: unknown): unknown {
  return store.dialect.isUniqueViolation(err) ? new DossierError('conflict', 'An agent with this slug already exists in the project', { cause: err }) : err;
}

export async function insertAgent(store: StoreContext, agent: AgentRecord): Promise<void> {
  const row = { id: agent.id, project_id: agent.projectId, created_by: agent.createdBy, created_at: agent.createdAt, ...patchColumns(store, agent) };
  try {
    await store.db
      .insertInto('agents')
      .values(row as Selectable<AgentsTable>)
      .execute();
  } catch (err) {
    throw slugConflict(store, err);
  }
}

export async function getAgent({ db }: StoreContext, id: string): Promise<AgentRecord | null> {
  const row = await db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? agentFromRow(row) : null;
}

export async function findAgentBySlug({ db }: StoreContext, projectId: string, slug: string): Promise<AgentRecord | null> {
  const row = await db.selectFrom('agents').selectAll().where('project_id', '=', projectId).where('slug', '=', slug).executeTakeFirst();
  return row ? agentFromRow(row) : null;
}

export async function listAgents(
  { db }: StoreContext,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<{ agents: AgentRecord[]; hasMore: boolean }> {
  const rows = await db
    .selectFrom('agents')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
  return { agents: rows.slice(0, page.limit).map(agentFromRow), hasMore: rows.length > page.limit };
}

export async function updateAgent(store: StoreContext, id: string, patch: AgentPatch): Promise<AgentRecord | null> {
  const columns = patchColumns(store, patch);
  try {
    if (Object.keys(columns).length) await store.db.updateTable('agents').set(columns).where('id', '=', id).execute();
  } catch (err) {
    throw slugConflict(store, err);
  }
  return getAgent(store, id);
}

export async function deleteAgent({ db }: StoreContext, id: string): Promise<void> {
  await db.deleteFrom('agents').where('id', '=', id).execute();
}
