import type { UsageStore } from '../ports/research-store.ts';
import type { Access } from '../access.ts';
import type { ContextPart } from '../context.ts';
import type { Env, UsageMeter } from '../domain/types.ts';
import type { SearchService } from '../search/query.ts';
import { nowIso } from '../util/ids.ts';
import { requireMeterRoom } from './quotas.ts';

/** Record usage on a project sandbox's meter now (spec: Usage meters). */
export async function meterUsage(store: UsageStore, owner: { projectId: string; env: Env }, meter: UsageMeter, amount: number): Promise<void> {
  await store.addUsage(owner.projectId, owner.env, meter, amount, nowIso());
}

/**
 * Count one query without making its caller wait for the count's commit, which comes after the answer, off the
 * query's latency (a third of a millisecond a query on SQLite; bench/RESULTS.md, 2026-11-27 21:30). With SQLite the
 * write is queued now on the one connection, first come first served, so this process's later reads (the next
 * query's quota check, `GET …/usage`) count it; with Postgres it lands within a round trip. A failed count is logged;
 * the query it counts was answered and is not undone.
 */
function meterInBackground(ctx: ContextPart<'log', UsageStore>, owner: { projectId: string; env: Env }): void {
  meterUsage(ctx.store, owner, 'queries', 1).catch((err) => ctx.log.warn('query not metered', { projectId: owner.projectId, error: String(err) }));
}

/**
 * The search service with every successful POST query metered as one `queries` unit on the caller's sandbox,
 * refused with 429 once its plan's monthly query limit is reached. Anonymous reads of a public collection are
 * metered to nobody and never checked against the owner's plan: strangers must not be able to spend or exhaust
 * the owner's quota (issue 9); they are held back by the per-address rate limit instead. Research tool calls use
 * the unmetered service: a research run is metered in credits.
 */
export function withQueryMeter(ctx: ContextPart<'log' | 'plans', UsageStore>, search: SearchService): SearchService {
  return {
    ...search,
    async query(access: Access, collectionId: string, raw) {
      if (access) await requireMeterRoom(ctx, access, 'queries', 1);
      const out = await search.query(access, collectionId, raw);
      if (access) meterInBackground(ctx, access);
      return out;
    },
  };
}
