/**
 * The sources group of the public API (`dossier.sources`, issue 43): folders on the server's disk (or S3 prefixes)
 * synced into collections, on demand or on a schedule, with their runs. Managed by signed-in org members.
 */
import type { Access } from '../access.ts';
import type { ProjectPath } from '../agents/service.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { SourceView } from '../sources/service.ts';
import type { SourceRunRecord } from '../sources/types.ts';

/** `dossier.sources`: create, list, read, update and delete sources; run them now; their runs; sync deletions. */
export interface SourceService {
  /**
   * Create a source syncing a folder (under the server's allowed roots) or an S3 prefix into a collection.
   * @throws {DossierError} `not_found` (project or collection), `forbidden` (a member, not an admin),
   *   `invalid_input` (bad path or interval, S3 not available on this server).
   * @example
   * await dossier.sources.create(claims, { orgId, projectId }, { kind: 'folder', path: '/srv/docs', collectionId, intervalMinutes: 60 });
   */
  create(claims: SessionClaims, path: ProjectPath, raw: unknown): Promise<SourceView>;
  /**
   * The project's sources (credentials never shown).
   * @throws {DossierError} `not_found` (org or project).
   */
  list(claims: SessionClaims, path: ProjectPath): Promise<SourceView[]>;
  /**
   * One source.
   * @throws {DossierError} `not_found`.
   */
  get(claims: SessionClaims, path: ProjectPath, sourceId: string): Promise<SourceView>;
  /**
   * Pause or resume a source, change its interval or its deletion limit.
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  update(claims: SessionClaims, path: ProjectPath, sourceId: string, raw: unknown): Promise<SourceView>;
  /**
   * Delete a source (the documents it brought in stay).
   * @throws {DossierError} `not_found`.
   */
  remove(claims: SessionClaims, path: ProjectPath, sourceId: string): Promise<void>;
  /**
   * Run now (202): the run is recorded as running at once and its counters fill in as the job goes.
   * @throws {DossierError} `not_found`, `forbidden` (a member, not an admin), `invalid_input`.
   */
  runNow(claims: SessionClaims, path: ProjectPath, sourceId: string, raw: unknown): Promise<SourceRunRecord>;
  /**
   * A sync's deletions (`dossier sync --delete`): the live documents with these source paths are deleted softly
   * (hidden at once, purged after the grace period, like a source run's); paths with no document are skipped.
   * @throws {DossierError} `not_found` (collection), `invalid_input`.
   */
  softDeleteByPath(access: Access, collectionId: string, raw: unknown): Promise<{ deleted: { path: string; documentId: string }[]; purgeAfter: string }>;
  /**
   * The source's newest runs, newest first.
   * @throws {DossierError} `not_found`.
   */
  runs(claims: SessionClaims, path: ProjectPath, sourceId: string): Promise<SourceRunRecord[]>;
}
