/**
 * The collections group of the public API (`dossier.collections`). Every method takes the caller's `Access` first
 * (see `access.ts`): a collection another project owns answers `not_found`, never `forbidden`, so ids reveal nothing.
 */
import type { Access } from '../access.ts';
import type { CollectionStats, CollectionView, PublicCollectionView } from '../collections/service.ts';
import type { CreateCollectionInput, UpdateCollectionInput } from '../schemas.ts';

/** Collections: create, list, read, update, delete and count. */
export interface CollectionService {
  /**
   * Create a collection in the caller's project, with its chunking, embedding model and retrieval settings.
   * @throws {DossierError} `unauthorized` (anonymous caller), `forbidden` (`projectId` is not the caller's),
   *   `invalid_input` (bad field, overlap ≥ chunk size, unknown embedding model), `payment_required` (plan quota).
   * @example
   * const c = await dossier.collections.create(access, { projectId: access.projectId, name: 'Handbook' });
   */
  create(access: Access, raw: CreateCollectionInput): Promise<CollectionView>;
  /**
   * The caller's collections (deleted ones left out).
   * @throws {DossierError} `unauthorized` (anonymous caller).
   */
  list(access: Access): Promise<CollectionView[]>;
  /**
   * The whole collection, to code that acts for its owner or reads a public one on its own behalf (the library).
   * @throws {DossierError} `not_found` (unknown, deleted, or another project's private collection).
   */
  get(access: Access, id: string): Promise<CollectionView>;
  /**
   * The collection as an API caller may see it: the whole collection to its owner, the PublicCollectionView to
   * anyone else reading a public one (GET /v1/collections/:id).
   * @throws {DossierError} `not_found` (unknown, deleted, or another project's private collection).
   */
  show(access: Access, id: string): Promise<CollectionView | PublicCollectionView>;
  /**
   * Change a collection's name, visibility, chunking or pipeline switches (the embedding model cannot change).
   * With an evaluation guard set, a change that drops nDCG@10 beyond the guard's limit is refused.
   * @throws {DossierError} `not_found`, `invalid_input` (bad field, overlap ≥ chunk size), `conflict` (refused by the
   *   evaluation guard unless `force`).
   * @example
   * await dossier.collections.update(access, id, { enableReranking: false });
   */
  update(access: Access, id: string, raw: UpdateCollectionInput): Promise<CollectionView>;
  /**
   * Delete a collection (softly: it disappears at once, its data is purged later).
   * @throws {DossierError} `not_found` (unknown, or not the caller's).
   */
  remove(access: Access, id: string): Promise<void>;
  /**
   * Counts of the collection: documents by status, sections, chunks, bytes stored, enrichments and claims.
   * @throws {DossierError} `not_found`.
   */
  stats(access: Access, id: string): Promise<CollectionStats>;
}

/** Re-deriving a collection's AI enrichments (after a model change, or to undo them). */
export interface RecomputeService {
  /**
   * Put every AI section summary back to its extractive one (store and scan index), then re-enqueue summarization.
   * @throws {DossierError} `not_found` (unknown collection, or not the caller's).
   */
  recomputeSummaries(access: Access, collectionId: string): Promise<{ enqueued: number }>;
  /**
   * Clear image and table captions, delete their caption chunks, then re-enqueue captioning. Captions are cleared
   * first: should the chunk deletion fail half-way, the leftover chunks are rewritten by the next caption run.
   * @throws {DossierError} `not_found`.
   */
  recomputeCaptions(access: Access, collectionId: string): Promise<{ enqueued: number }>;
}

/** `dossier.collections`: create, list, read, update, delete, count, re-derive and describe collections. */
export interface CollectionsApi extends CollectionService, RecomputeService {
  /**
   * Write the collection's description with the fast model from its file names and top headings.
   * @throws {DossierError} `not_found`, `not_configured` (no fast model), `provider_error` (the model call failed).
   */
  describe(access: Access, collectionId: string): Promise<CollectionView>;
}
