import type { Env, JsonValue, ResearchDepth, ResearchSessionRecord, ResearchSource, RunUsage, SandboxTotals, UsageMeter } from '@dossier/core';
import type { Selectable } from 'kysely';
import { sql } from './runtime.ts';
import type { StoreContext } from './dialect.ts';
import type { ResearchSessionsTable } from './schema.ts';

/** Research sessions and usage meters. */

/** A JSON column: text in SQLite, already parsed by a Postgres driver. */
const fromJson = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

const sessionFromRow = (r: Selectable<ResearchSessionsTable>): ResearchSessionRecord => ({
  id: r.id,
  collectionId: r.collection_id,
  query: r.query,
  response: r.response,
  depth: r.depth as ResearchDepth,
  model: r.model,
  sources: fromJson(r.sources) as ResearchSource[],
  unresolvedCitations: fromJson(r.unresolved_citations) as string[],
  usage: r.usage === null ? null : (fromJson(r.usage) as RunUsage),
  createdAt: r.created_at,
});

export async function insertResearchSession({ db, dialect }: StoreContext, s: ResearchSessionRecord): Promise<void> {
  await db
    .insertInto('research_sessions')
    .values({
      id: s.id,
      collection_id: s.collectionId,
      query: s.query,
      response: s.response,
      depth: s.depth,
      model: s.model,
      sources: dialect.json(s.sources as unknown as JsonValue),
      unresolved_citations: dialect.json(s.unresolvedCitations),
      usage: s.usage === null ? null : dialect.json(s.usage as unknown as JsonValue),
      created_at: s.createdAt,
    })
    .execute();
}

export async function listResearchSessions({ db }: StoreContext, collectionId: string, limit: number): Promise<ResearchSessionRecord[]> {
  const rows = await db
    .selectFrom('research_sessions')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(sessionFromRow);
}

export async function getResearchSession({ db }: StoreContext, id: string): Promise<ResearchSessionRecord | null> {
  const row = await db.selectFrom('research_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? sessionFromRow(row) : null;
}

export async function deleteResearchSession({ db }: StoreContext, id: string): Promise<void> {
  await db.deleteFrom('research_sessions').where('id', '=', id).execute();
}

export async function addUsage({ db }: StoreContext, projectId: string, env: Env, meter: UsageMeter, amount: number, at: string): Promise<void> {
  await db.insertInto('usage_events').values({ project_id: projectId, env, meter, amount, at }).execute();
}

export async function spendIfRoom(
  ctx: StoreContext,
  projectId: string,
  env: Env,
  meter: UsageMeter,
  amount: number,
  cap: number | null,
  since: string,
  at: string,
): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const inTx = { ...ctx, db: trx };
    await ctx.dialect.lockForTransaction(trx, `usage:${projectId}:${env}:${meter}`);
    if (cap !== null && (await usageTotals(inTx, projectId, env, since))[meter] + amount > cap) return false;
    await addUsage(inTx, projectId, env, meter, amount, at);
    return true;
  });
}

export async function usageTotals({ db }: StoreContext, projectId: string, env: Env, since: string): Promise<Record<UsageMeter, number>> {
  const rows = await db
    .selectFrom('usage_events')
    .select(['meter', (eb) => eb.fn.sum<number>('amount').as('total')])
    .where('project_id', '=', projectId)
    .where('env', '=', env)
    .where('at', '>=', since)
    .groupBy('meter')
    .execute();
  const totals: Record<UsageMeter, number> = { queries: 0, credits: 0 };
  for (const r of rows) if (r.meter === 'queries' || r.meter === 'credits') totals[r.meter] = Number(r.total);
  return totals;
}

export async function usageByDay(
  { db }: StoreContext,
  projectId: string,
  env: Env,
  since: string,
  until: string,
): Promise<{ date: string; meter: UsageMeter; amount: number }[]> {
  const day = sql<string>`substr(at, 1, 10)`;
  const rows = await db
    .selectFrom('usage_events')
    .select(['meter', day.as('date'), (eb) => eb.fn.sum<number>('amount').as('total')])
    .where('project_id', '=', projectId)
    .where('env', '=', env)
    .where('at', '>=', since)
    .where('at', '<', until)
    .groupBy(['meter', day])
    .orderBy(day)
    .execute();
  return rows
    .filter((r) => r.meter === 'queries' || r.meter === 'credits')
    .map((r) => ({ date: String(r.date), meter: r.meter as UsageMeter, amount: Number(r.total) }));
}

export async function sandboxTotals({ db }: StoreContext, projectId: string, env: Env): Promise<SandboxTotals> {
  const live = db.selectFrom('collections').select('id').where('project_id', '=', projectId).where('env', '=', env).where('deleted_at', 'is', null);
  const [collections, documents] = await Promise.all([
    db
      .selectFrom('collections')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('project_id', '=', projectId)
      .where('env', '=', env)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('documents')
      .select((eb) => [
        eb.fn.countAll().as('n'),
        eb.fn.coalesce(eb.fn.sum('file_size_bytes'), eb.lit(0)).as('bytes'),
        eb.fn.coalesce(eb.fn.sum('derived_bytes'), eb.lit(0)).as('derived'),
      ])
      .where('collection_id', 'in', live)
      .executeTakeFirstOrThrow(),
  ]);
  return { collections: Number(collections.n), documents: Number(documents.n), storageBytes: Number(documents.bytes) + Number(documents.derived) };
}
