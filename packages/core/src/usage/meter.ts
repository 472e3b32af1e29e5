import type { Access } from '../access.ts';
import type { DossierContext } from '../context.ts';
import type { Env, UsageMeter } from '../domain/types.ts';
import type { SearchService } from '../search/query.ts';
import { nowIso } from '../util/ids.ts';

/** Record usage on a project sandbox's meter now (spec: Usage meters). */
export async function meterUsage(ctx: DossierContext, owner: { projectId: string; env: Env }, meter: UsageMeter, amount: number): Promise<void> {
  await ctx.store.addUsage(owner.projectId, owner.env, meter, amount, nowIso());
}

/**
 * The search service with every successful POST query metered as one `queries` unit on the collection's project
 * (also for anonymous reads of a public collection). Research tool calls use the unmetered service: a research
 * run is metered in credits instead.
 */
export function withQueryMeter(ctx: DossierContext, search: SearchService): SearchService {
  return {
    ...search,
    async query(access: Access, collectionId: string, raw) {
      const out = await search.query(access, collectionId, raw);
      const c = await ctx.store.getCollection(collectionId);
      if (c) await meterUsage(ctx, c, 'queries', 1);
      return out;
    },
  };
}
