import type { DocumentRecord } from '../domain/types.ts';

/** One document of a collection's source manifest (issue 43): what a sync compares a folder or bucket with. */
export interface ManifestEntry {
  path: string;
  hash: string | null;
  stamp: string | null;
  documentId: string;
  version: number;
  status: DocumentRecord['status'];
  updatedAt: string;
}

/**
 * The source part of the MetadataStore (issue 43): documents found by the path they came from, and the manifest of
 * those paths. Soft-deleted documents are left out of both.
 */
export interface SourceDocumentStore {
  /** The live document of the collection that came from this source path, or null. */
  findDocumentBySourcePath(collectionId: string, sourcePath: string): Promise<DocumentRecord | null>;
  /** Live documents with a source path, ordered by path, those after `after` (exclusive), at most `limit`. */
  listSourceManifest(collectionId: string, after: string | null, limit: number, prefix?: string): Promise<ManifestEntry[]>;
  /** Soft-deleted documents whose deletion is older than `before`, at most `limit`, oldest first. */
  listSoftDeletedDocuments(before: string, limit: number): Promise<DocumentRecord[]>;
}
