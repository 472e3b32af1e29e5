import type { CollectionStore } from '../ports/collection-store.ts';
import type { EnrichStore } from '../ports/enrich-store.ts';
import type { SectionStore } from '../ports/section-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { type Access, requireCollection } from '../access.ts';
import type { ContextPart } from '../context.ts';
import type { Collection } from '../domain/types.ts';
import { deleteCaptionChunks } from './caption-chunks.ts';
import { type EnrichKind, enqueueEnrich, enrichEnabled } from './jobs.ts';
import { rewriteSectionRows } from './section-rows.ts';
import type { RecomputeService } from '../api/collections.ts';

/**
 * Re-enqueue a job for every ready document, when it would run: the collection flag is on and the project can
 * reach a model provider. Otherwise nothing is queued and the count is 0 — the reset still happened (the spec
 * ingests documents normally without a key, so a missing key is not an error here; `enqueued: 0` says it).
 * No dedupe: a job already running for a document may have read the state from before the reset.
 */
async function enqueueReady(ctx: ContextPart<'models' | 'queue' | 'wakeWorkers', DocumentStore>, c: Collection, kind: EnrichKind): Promise<number> {
  if (!enrichEnabled[kind](c) || !(await ctx.models.hasProvider({ projectId: c.projectId, env: c.env }))) return 0;
  const ready = (await ctx.store.findDocuments(c.id, {})).filter((d) => d.status === 'ready');
  for (const d of ready) await enqueueEnrich(ctx, kind, d.id, false);
  if (ready.length > 0) ctx.wakeWorkers();
  return ready.length;
}

/** The recompute endpoints of a collection (spec: /v1/collections/:id/recompute/summaries and …/captions). */
export function recomputeService(
  ctx: ContextPart<'index' | 'models' | 'queue' | 'wakeWorkers', CollectionStore & DocumentStore & EnrichStore & SectionStore>,
): RecomputeService {
  return {
    /** Put every AI section summary back to its extractive one (store and scan index), then re-enqueue summarization. */
    async recomputeSummaries(access: Access, collectionId: string): Promise<{ enqueued: number }> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      await rewriteSectionRows(ctx, c, await ctx.store.resetGeneratedSummaries(c.id));
      return { enqueued: await enqueueReady(ctx, c, 'summaries') };
    },
    /**
     * Clear image and table captions, delete their caption chunks, then re-enqueue captioning. Captions are cleared
     * first: should the chunk deletion fail half-way, the leftover chunks are rewritten by the next caption run.
     */
    async recomputeCaptions(access: Access, collectionId: string): Promise<{ enqueued: number }> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const docs = await ctx.store.resetCaptions(c.id);
      for (const documentId of docs) await deleteCaptionChunks(ctx, c, documentId);
      if (docs.length > 0) await ctx.index.refresh(c.id);
      return { enqueued: await enqueueReady(ctx, c, 'captions') };
    },
  };
}

export type { RecomputeService };
