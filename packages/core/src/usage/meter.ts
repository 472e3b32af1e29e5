import type { Access } from '../access.ts';
import type { DossierContext } from '../context.ts';
import type { Env, UsageMeter } from '../domain/types.ts';
import type { SearchService } from '../search/query.ts';
import { nowIso } from '../util/ids.ts';
import { requireMeterRoom } from './quotas.ts';

/** Record usage on a project sandbox's meter now (spec: Usage meters). */
export async function meterUsage(ctx: DossierContext, owner: { projectId: string; env: Env }, meter: UsageMeter, amount: number): Promise<void> {
  await ctx.store.addUsage(owner.projectId, owner.env, meter, amount, nowIso());
}

/**
 * The search service with every successful POST query metered as one `queries` unit on the caller's sandbox,
 * refused with 429 once its plan's monthly query limit is reached. Anonymous reads of a public collection are
 * metered to nobody and never checked against the owner's plan: strangers must not be able to spend or exhaust
 * the owner's quota (issue 9); they are held back by the per-address rate limit instead. Research tool calls use
 * the unmetered service: a research run is metered in credits.
 */
export function withQueryMeter(ctx: DossierContext, search: SearchService): SearchService {
  return {
    ...search,
    async query(access: Access, collectionId: string, raw) {
      if (access) await requireMeterRoom(ctx, access, 'queries', 1);
      const out = await search.query(access, collectionId, raw);
      if (access) await meterUsage(ctx, access, 'queries', 1);
      return out;
    },
  };
}
