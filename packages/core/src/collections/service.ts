import type { UsageStore } from '../ports/research-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import type { ClaimStore } from '../ports/claim-store.ts';
import { type Access, ownedBy, requireAccess, requireCollection } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { Collection } from '../domain/types.ts';
import { type CreateCollectionInput, createCollectionSchema, parseInput, type UpdateCollectionInput, updateCollectionSchema } from '../schemas.ts';
import { requireQuotaRoom } from '../usage/quotas.ts';
import { newId, nowIso } from '../util/ids.ts';
import type { CollectionService } from '../api/collections.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** Collection as the API shows it (internal fields dropped). */
export type CollectionView = z.output<typeof responses.collection>;

export const collectionView = (c: Collection): CollectionView => {
  const { projectId: _p, env: _e, embeddingDimension: _d, deletedAt: _x, ...view } = c;
  return view;
};

/**
 * What a caller who does not own a public collection sees of it (anonymous, or another project's key): what it is
 * and how much it holds. Never its owner's settings: research instructions, models, pipeline switches (issue 33;
 * the spec opens only query, section scan and document reads to anonymous callers).
 */
export type PublicCollectionView = z.output<typeof responses.publicCollection>;

/** CollectionStats as the spec defines it. */
export type CollectionStats = z.output<typeof responses.collectionStats>;

async function resolveDimension(ctx: ContextPart<'embedders'>, model: string): Promise<number | null> {
  if (model === 'none') return null;
  const embedder = await ctx.embedders.get(model);
  if (!embedder) {
    throw new DossierError('invalid_input', `Embedding model '${model}' is not available on this server; use 'none' for BM25-only search`);
  }
  return embedder.dimension;
}

function defaults(input: ReturnType<typeof createCollectionSchema.parse>, access: NonNullable<Access>, model: string, dim: number | null): Collection {
  return {
    id: newId(),
    projectId: access.projectId,
    env: access.env,
    name: input.name,
    visibility: input.visibility ?? 'private',
    description: input.description ?? null,
    chunkSize: input.chunkSize ?? 512,
    chunkOverlap: input.chunkOverlap ?? 64,
    embeddingModel: model,
    embeddingDimension: dim,
    enableSummarization: true,
    enableCaptioning: true,
    enableReranking: true,
    enableDeduplication: false,
    suppressContradictionsByMetadata: true,
    suppressIntraDocumentContradictions: true,
    llmModel: null,
    instructions: null,
    queryExpansion: input.queryExpansion ?? null,
    duplicateThreshold: input.duplicateThreshold ?? null,
    createdAt: nowIso(),
    deletedAt: null,
  };
}

/** Collections: create, list, get, update, stats, soft delete. */
export function collectionService(
  ctx: ContextPart<'defaultEmbeddingModel' | 'embedders' | 'index' | 'plans', UsageStore & CollectionStore & ClaimStore>,
): CollectionService {
  return {
    async create(access: Access, raw: CreateCollectionInput): Promise<CollectionView> {
      const a = requireAccess(access);
      const input = parseInput(createCollectionSchema, raw);
      if (input.projectId !== a.projectId) throw new DossierError('forbidden', 'The API key does not belong to this projectId');
      if ((input.chunkOverlap ?? 64) >= (input.chunkSize ?? 512)) throw new DossierError('invalid_input', 'chunkOverlap must be smaller than chunkSize');
      await requireQuotaRoom(ctx, a, { collections: 1 });
      const model = input.embeddingModel ?? ctx.defaultEmbeddingModel;
      const collection = defaults(input, a, model, await resolveDimension(ctx, model));
      await ctx.index.createCollection(collection.id, collection.embeddingDimension);
      await ctx.store.insertCollection(collection);
      return collectionView(collection);
    },
    async list(access: Access): Promise<CollectionView[]> {
      const a = requireAccess(access);
      return (await ctx.store.listCollections(a.projectId, a.env)).map(collectionView);
    },
    /** The whole collection, to code that acts for its owner or reads a public one on its own behalf (the library). */
    async get(access: Access, id: string): Promise<CollectionView> {
      return collectionView(await requireCollection(ctx.store, access, id, 'read'));
    },
    /**
     * The collection as an API caller may see it: the whole collection to its owner, the PublicCollectionView to
     * anyone else reading a public one (GET /v1/collections/:id).
     */
    async show(access: Access, id: string): Promise<CollectionView | PublicCollectionView> {
      const c = await requireCollection(ctx.store, access, id, 'read');
      if (ownedBy(c, access)) return collectionView(c);
      const { docCount, totalSections } = await ctx.store.collectionCounts(c.id);
      return { id: c.id, name: c.name, description: c.description, visibility: 'public', docCount, totalSections, createdAt: c.createdAt };
    },
    async update(access: Access, id: string, raw: UpdateCollectionInput): Promise<CollectionView> {
      const c = await requireCollection(ctx.store, access, id, 'write');
      const patch = parseInput(updateCollectionSchema, raw);
      const { embeddingModel: _ignored, force: _force, ...rest } = patch;
      if ((rest.chunkOverlap ?? c.chunkOverlap) >= (rest.chunkSize ?? c.chunkSize)) {
        throw new DossierError('invalid_input', 'chunkOverlap must be smaller than chunkSize');
      }
      return collectionView(await ctx.store.updateCollection(c.id, rest));
    },
    async remove(access: Access, id: string): Promise<void> {
      const c = await requireCollection(ctx.store, access, id, 'write');
      await ctx.store.updateCollection(c.id, { deletedAt: nowIso() });
    },
    async stats(access: Access, id: string): Promise<CollectionStats> {
      const c = await requireCollection(ctx.store, access, id, 'read');
      const [counts, dbBytes, claims] = await Promise.all([ctx.store.collectionCounts(c.id), ctx.index.sizeBytes(c.id), ctx.store.claimCounts(c.id)]);
      return { ...counts, dbBytes, claimsExtractedCount: claims.documents, totalClaimsCount: claims.claims };
    },
  };
}

export type { CollectionService };
