/**
 * The claims group of the public API (`dossier.claims`): claims extracted from documents, the 2-D claim map,
 * and contradictions found between documents. A collection of another project answers `not_found`.
 */
import type { Access } from '../access.ts';
import type { ClaimView, ContradictionListQuery, ContradictionRunView, ContradictionView } from '../claims/service.ts';
import type { MapProgress } from '../claims/map.ts';
import type { ClaimMapItem } from '../domain/claims.ts';

/** `dossier.claims`: claims of documents, the claim map, and contradiction runs and their findings. */
export interface ClaimService {
  /**
   * Claims of a document with importance ≥ minImportance, by position (spec: GET /v1/documents/:id/claims).
   * @throws {DossierError} `not_found` (document).
   */
  documentClaims(access: Access, documentId: string, minImportance: number): Promise<{ documentId: string; claims: ClaimView[] }>;
  /**
   * The 2-D claim map of a collection's ready documents, from the cache while the claims are unchanged. The
   * caller's ownership is checked first (so a refusal is an HTTP status, before any stream opens); the returned
   * function does the work.
   * @throws {DossierError} `not_found` (collection); the returned function: `not_configured` (no embedding model).
   */
  openClaimMap(access: Access, collectionId: string): Promise<(progress: MapProgress) => Promise<{ total: number; claims: ClaimMapItem[] }>>;
  /**
   * The claim map in one call (library use).
   * @throws {DossierError} as `openClaimMap`.
   * @example
   * const { claims } = await dossier.claims.claimMap(access, id, (pct) => console.log(`${pct} %`));
   */
  claimMap(access: Access, collectionId: string, progress: MapProgress): Promise<{ total: number; claims: ClaimMapItem[] }>;
  /**
   * Delete every claim and the cached map, then re-enqueue extraction of every ready document (204).
   * @throws {DossierError} `not_found`.
   */
  recomputeClaims(access: Access, collectionId: string): Promise<void>;
  /**
   * Start a contradiction run, or return the one still in flight (spec: POST …/contradictions/detect).
   * @throws {DossierError} `not_found`, `not_configured` (no model provider for the project).
   */
  detectContradictions(access: Access, collectionId: string): Promise<{ runId: string; status: 'enqueued' | 'running'; enqueuedAt: string }>;
  /**
   * The newest contradiction run.
   * @throws {DossierError} `not_found` (collection, or no run yet).
   */
  latestContradictionRun(access: Access, collectionId: string): Promise<ContradictionRunView>;
  /**
   * Contradictions of a collection, newest first (spec: GET …/contradictions).
   * @throws {DossierError} `not_found`.
   */
  listContradictions(access: Access, collectionId: string, query: ContradictionListQuery): Promise<{ total: number; items: ContradictionView[] }>;
  /**
   * Documents by number of contradictions touching them, count desc then filename asc (spec: …/files).
   * @throws {DossierError} `not_found`.
   */
  contradictionFiles(
    access: Access,
    collectionId: string,
    query: Omit<ContradictionListQuery, 'limit' | 'offset' | 'documentId'>,
  ): Promise<{ files: { documentId: string; filename: string; contradictionCount: number }[] }>;
  /**
   * Dismiss a contradiction (spec: update contradiction with status `dismissed`).
   * @throws {DossierError} `not_found` (collection or contradiction).
   */
  dismissContradiction(access: Access, collectionId: string, contradictionId: string): Promise<ContradictionView>;
  /**
   * Append the instruction (the given one, else the suggested one) to the collection's instructions and mark the
   * contradiction applied. A result over 4,000 characters is refused, never cut.
   * @throws {DossierError} `not_found`, `invalid_input` (no instruction to apply, or the result is too long).
   */
  applyInstruction(access: Access, collectionId: string, contradictionId: string, instruction?: string): Promise<void>;
}
