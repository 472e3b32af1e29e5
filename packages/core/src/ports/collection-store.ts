import type { Collection, Env } from '../domain/types.ts';

/** Fields a collection update may change (embeddingModel never changes). */
export type CollectionPatch = Partial<Omit<Collection, 'id' | 'projectId' | 'env' | 'embeddingModel' | 'embeddingDimension' | 'createdAt'>>;

/** Aggregates behind CollectionStats that live in the metadata store. */
export interface CollectionCounts {
  docCount: number;
  totalFileSizeBytes: number;
  /** Uploads plus what was derived from them, summed from each document's counters (no file listing); = usage `storage`. */
  storageBytes: number;
  totalSections: number;
  totalChunks: number;
  statusCounts: Record<string, number>;
  summarizedCount: number;
  /** Ready documents with at least one image or table caption (each caption has its caption chunk). */
  captionedCount: number;
}

/** Collections of a project's sandbox (part of the MetadataStore). */
export interface CollectionStore {
  /** Insert a collection. */
  insertCollection(collection: Collection): Promise<void>;
  /** A collection by id, including soft-deleted ones (callers check deletedAt). */
  getCollection(id: string): Promise<Collection | null>;
  /** Live (not soft-deleted) collections of a project environment, oldest first. */
  listCollections(projectId: string, env: Env): Promise<Collection[]>;
  /** Apply a patch and return the updated collection. */
  updateCollection(id: string, patch: CollectionPatch): Promise<Collection>;
  /** Document, section and size aggregates for stats. */
  collectionCounts(collectionId: string): Promise<CollectionCounts>;
}
