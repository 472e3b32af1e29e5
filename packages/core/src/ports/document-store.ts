import type { DocumentRecord, DocumentStatus, Metadata } from '../domain/types.ts';

/** Fields a document update may change. */
export type DocumentPatch = Partial<Omit<DocumentRecord, 'id' | 'collectionId' | 'createdAt'>>;

export interface DocumentListQuery extends Omit<DocumentFilter, 'metadata'> {
  status?: DocumentStatus;
  limit: number;
  offset: number;
}

/** Tag and metadata filters applied to documents (same meaning as RetrievalFilter). */
export interface DocumentFilter {
  tags?: string[];
  anyTags?: string[];
  metadata?: Metadata;
}

/** A collection's documents, their tags and metadata (part of the MetadataStore). */
export interface DocumentStore {
  /** Insert a document. */
  insertDocument(doc: DocumentRecord): Promise<void>;
  /** A document by id. */
  getDocument(id: string): Promise<DocumentRecord | null>;
  /** Documents by ids (missing ids are skipped), in no particular order. */
  getDocuments(ids: string[]): Promise<DocumentRecord[]>;
  /** A page of a collection's documents, newest first, with the total matching count. */
  listDocuments(collectionId: string, q: DocumentListQuery): Promise<{ documents: DocumentRecord[]; total: number }>;
  /** Every document of a collection matching the filter (ids and filenames are enough for callers). */
  findDocuments(collectionId: string, filter: DocumentFilter): Promise<DocumentRecord[]>;
  /** The oldest document in the collection whose contentHash matches and whose status is not error. */
  findDocumentByHash(collectionId: string, contentHash: string): Promise<DocumentRecord | null>;
  /** Apply a patch (updatedAt is set by the store) and return the updated document. */
  updateDocument(id: string, patch: DocumentPatch): Promise<DocumentRecord>;
  /** Delete a document and its sections. */
  deleteDocument(id: string): Promise<void>;
  /** Tag names with document counts, sorted by count desc then name. */
  tagCounts(collectionId: string): Promise<{ name: string; count: number }[]>;
  /** True when at least one document of the collection has non-empty metadata. */
  hasMetadata(collectionId: string): Promise<boolean>;
}
