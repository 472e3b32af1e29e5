import type { DocumentRecord } from '../domain/types.ts';
import type { SourceRecord, SourceRunRecord } from '../sources/types.ts';

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

/** The server-side sources of collections and their runs (issue 43; part of the MetadataStore). */
export interface CollectionSourceStore {
  insertSource(source: SourceRecord): Promise<void>;
  getSource(id: string): Promise<SourceRecord | null>;
  /** Sources of the collections of a project sandbox, oldest first (`collectionIds`: those collections). */
  listSources(collectionIds: string[]): Promise<SourceRecord[]>;
  updateSource(id: string, patch: Partial<Omit<SourceRecord, 'id' | 'collectionId' | 'kind' | 'createdAt'>>): Promise<SourceRecord>;
  /**
   * Take a source's run lock for `owner` until `until` (ISO): when no one holds it, its holder's lease has ended, or
   * `owner` holds it already (a renewal). False while another holds it: runs of one source never overlap, across nodes.
   */
  lockSource(id: string, owner: string, until: string): Promise<boolean>;
  /** Release the run lock if `owner` still holds it. */
  unlockSource(id: string, owner: string): Promise<void>;
  /** Delete a source with its runs (its documents stay). */
  deleteSource(id: string): Promise<void>;
  insertSourceRun(run: SourceRunRecord): Promise<void>;
  updateSourceRun(id: string, patch: Partial<Omit<SourceRunRecord, 'id' | 'sourceId' | 'collectionId'>>): Promise<SourceRunRecord>;
  /** A source's newest runs, newest first. */
  listSourceRuns(sourceId: string, limit: number): Promise<SourceRunRecord[]>;
}
