import type { CollectionStore } from '../ports/collection-store.ts';
import type { EvaluationStore } from '../ports/evaluation-store.ts';
import { type Access, requireCollection } from '../access.ts';
import type { CollectionView } from '../collections/service.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { Collection } from '../domain/types.ts';
import type { EvaluationTrigger, GoldenSetRecord } from '../ports/evaluation-store.ts';
import { parseInput, type UpdateCollectionInput, updateCollectionSchema } from '../schemas.ts';
import type { RetrievalSettings } from '../search/query.ts';
import type { EvaluationSettingsPatch, GuardFigures } from './schemas.ts';
import type { CompletedRun } from './service.ts';

/** A guarded settings change refused: nDCG@10 would fall by more than the guard's margin (HTTP 409 with both figures). */
export class EvaluationGuardRefusal extends DossierError {
  readonly guard: GuardFigures;
  constructor(guard: GuardFigures) {
    const drop = (guard.beforeNdcg10 - guard.afterNdcg10).toFixed(4);
    super(
      'conflict',
      `The change lowers nDCG@10 from ${guard.beforeNdcg10.toFixed(4)} to ${guard.afterNdcg10.toFixed(4)} (−${drop}, more than the guard's ${guard.maxNdcgDrop}); send force: true to apply it anyway`,
    );
    this.guard = guard;
  }
}

/** The query-time settings a collection patch changes, as an evaluation settings patch (empty when it changes none). */
function queryTimeChange(c: Collection, patch: ReturnType<typeof updateCollectionSchema.parse>, server: RetrievalSettings): EvaluationSettingsPatch {
  const change: EvaluationSettingsPatch = {};
  if (patch.queryExpansion !== undefined && patch.queryExpansion !== c.queryExpansion) {
    change.queryExpansion = patch.queryExpansion ?? server.queryExpansion ?? 'none';
  }
  if (patch.enableReranking !== undefined && patch.enableReranking !== c.enableReranking) change.enableReranking = patch.enableReranking;
  return change;
}

type Evaluate = (c: Collection, set: GoldenSetRecord, patch: EvaluationSettingsPatch | undefined, trigger: EvaluationTrigger) => Promise<CompletedRun>;
type Update = (access: Access, id: string, raw: UpdateCollectionInput) => Promise<CollectionView>;

/**
 * The collection update with its evaluation guard (issue 38): when the collection has a guard and the patch changes
 * a query-time setting (queryExpansion, enableReranking), the guard's golden set is run with the current settings
 * and with the patch applied (a what-if run: the same query path, nothing saved), both runs are stored, and a fall
 * of nDCG@10 beyond the guard's margin refuses the change unless the patch says `force: true`.
 */
export function guardedCollectionUpdate(
  ctx: ContextPart<never, CollectionStore & EvaluationStore>,
  server: RetrievalSettings,
  update: Update,
  evaluate: Evaluate,
): Update {
  return async (access, id, raw) => {
    const c = await requireCollection(ctx.store, access, id, 'write');
    const patch = parseInput(updateCollectionSchema, raw);
    const guard = await ctx.store.getEvaluationGuard(c.id);
    const change = queryTimeChange(c, patch, server);
    const set = guard && Object.keys(change).length > 0 ? await ctx.store.getGoldenSet(guard.setId) : null;
    if (!guard || !set) return update(access, id, raw);
    const before = await evaluate(c, set, undefined, 'guard-before');
    const after = await evaluate(c, set, change, 'guard-after');
    const drop = before.metrics.ndcg10 - after.metrics.ndcg10;
    if (drop > guard.maxNdcgDrop + 1e-9 && patch.force !== true) {
      throw new EvaluationGuardRefusal({
        setId: set.id,
        maxNdcgDrop: guard.maxNdcgDrop,
        beforeNdcg10: before.metrics.ndcg10,
        afterNdcg10: after.metrics.ndcg10,
        beforeRunId: before.id,
        afterRunId: after.id,
      });
    }
    return update(access, id, raw);
  };
}
