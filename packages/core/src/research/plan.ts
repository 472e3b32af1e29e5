import type { CollectionStore } from '../ports/collection-store.ts';
import type { UsageStore } from '../ports/research-store.ts';
import { type Access, requireAccess, requireCollection } from '../access.ts';
import type { ContextPart } from '../context.ts';
import type { Collection } from '../domain/types.ts';
import type { ResolvedModel } from '../models/types.ts';
import { parseInput, type ResearchInput, researchSchema } from '../schemas.ts';
import { requireMeterRoom } from '../usage/quotas.ts';
import { type DepthSettings, RESEARCH_DEPTHS } from './depths.ts';

/** Everything a run needs, settled before any event is sent (so failures here become HTTP statuses). */
export interface ResearchPlan {
  owner: NonNullable<Access>;
  collection: Collection;
  input: ReturnType<typeof researchSchema.parse>;
  depth: DepthSettings;
  model: ResolvedModel;
}

/**
 * Check the caller owns the collection (research spends the project's credits and provider keys, so a public
 * collection of another project is not enough), validate the request and resolve the model. A request without
 * `model` uses the depth's tier default: the collection's llmModel is for summaries and captions only (spec:
 * Collection), so a deep run gets the best model even when the collection names a fast one.
 */
export async function planResearch(
  ctx: ContextPart<'models' | 'plans', CollectionStore & UsageStore>,
  access: Access,
  collectionId: string,
  raw: ResearchInput,
): Promise<ResearchPlan> {
  const collection = await requireCollection(ctx.store, access, collectionId, 'write');
  const owner = requireAccess(access);
  const input = parseInput(researchSchema, raw);
  const depth = RESEARCH_DEPTHS[input.depth];
  await requireMeterRoom(ctx, owner, 'credits', depth.credits);
  const model = await ctx.models.resolve(owner, input.model ?? null, depth.tier);
  return { owner, collection, input, depth, model };
}
