/**
 * The duplicates group of the public API (`dossier.duplicates`): near-duplicate documents of a collection, found
 * by fingerprints and grouped with one canonical member (the others leave retrieval). Needs the collection's owner.
 */
import type { Access } from '../access.ts';
import type { DuplicateComparison } from '../duplicates/compare.ts';
import type { DuplicateGroupView, DuplicateRunView } from '../duplicates/service.ts';

/** `dossier.duplicates`: detection runs, groups, side-by-side comparison, promote and disband. */
export interface DuplicateService {
  /**
   * Start a detection run over every ready document (202).
   * @throws {DossierError} `not_found` (collection), `conflict` (a run is in flight).
   */
  detect(access: Access, collectionId: string): Promise<{ runId: string; status: 'pending'; jobsEnqueued: number; enqueuedAt: string }>;
  /**
   * The newest run.
   * @throws {DossierError} `not_found` (collection, or no run yet).
   */
  latestRun(access: Access, collectionId: string): Promise<DuplicateRunView>;
  /**
   * A page of groups, newest first.
   * @throws {DossierError} `not_found`.
   */
  list(access: Access, collectionId: string, page: { limit: number; offset: number }): Promise<{ total: number; items: DuplicateGroupView[] }>;
  /**
   * Any two members side by side: coverage both ways and the passages they share.
   * @throws {DossierError} `not_found` (collection or group), `invalid_input` (`left` or `right` missing, or not members).
   */
  compare(access: Access, collectionId: string, groupId: string, pair: { left?: string; right?: string }): Promise<DuplicateComparison>;
  /**
   * Make a member canonical (spec: promote): it returns to retrieval, the others leave it.
   * @throws {DossierError} `not_found`, `invalid_input` (not a member of the group).
   */
  promote(access: Access, collectionId: string, groupId: string, canonicalDocumentId: string): Promise<{ success: true; changed: boolean }>;
  /**
   * Disband a group: every member back in retrieval (spec: disband).
   * @throws {DossierError} `not_found`.
   */
  disband(access: Access, collectionId: string, groupId: string): Promise<{ success: true; groupId: string; members: number }>;
}
