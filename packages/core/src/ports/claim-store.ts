import type { ClaimMapItem, ClaimRecord, ContradictionRecord, ContradictionRunRecord, ContradictionSeverity, ContradictionStatus } from '../domain/claims.ts';
import type { ServiceEvent } from '../events/catalogue.ts';

/** Filter of a contradiction listing. */
export interface ContradictionFilter {
  status: ContradictionStatus;
  severity?: ContradictionSeverity;
  /** Only contradictions with a claim of this document. */
  documentId?: string;
}

/**
 * Claims, the cached claim map, contradictions and their runs (the claims feature's own store port).
 * Scoping by project is the caller's policy, as for the rest of the store.
 */
export interface ClaimStore {
  /** Replace every claim of a document with these (an empty list records that none were found). */
  replaceDocumentClaims(documentId: string, claims: ClaimRecord[]): Promise<void>;
  /** Delete a document's claims and its extraction record (its content was replaced: none of them may linger). */
  deleteDocumentClaims(documentId: string): Promise<void>;
  /** Claims of a document with importance ≥ minImportance, by position. */
  listDocumentClaims(documentId: string, minImportance: number): Promise<ClaimRecord[]>;
  /** Every claim of a collection's documents, by document then position. */
  listCollectionClaims(collectionId: string): Promise<ClaimRecord[]>;
  /** Delete every claim of a collection (and mark its documents not extracted). */
  deleteCollectionClaims(collectionId: string): Promise<void>;
  /** Ready documents whose claims were extracted, and the claims of the collection. */
  claimCounts(collectionId: string): Promise<{ documents: number; claims: number }>;
  /** The cached map of a collection when it was computed at this claims version, else null. */
  getClaimMap(collectionId: string, version: string): Promise<ClaimMapItem[] | null>;
  /** Cache a collection's map for a claims version (replacing any other). */
  putClaimMap(collectionId: string, version: string, items: ClaimMapItem[]): Promise<void>;
  /** Drop a collection's cached map. */
  clearClaimMap(collectionId: string): Promise<void>;

  /** Insert a run. */
  insertContradictionRun(run: ContradictionRunRecord): Promise<void>;
  /** Change a run's fields, recording `events` (its completion) in the same transaction. */
  updateContradictionRun(id: string, patch: Partial<ContradictionRunRecord>, events?: ServiceEvent[]): Promise<void>;
  /** The newest run of a collection, or null. */
  latestContradictionRun(collectionId: string): Promise<ContradictionRunRecord | null>;
  /** Insert contradictions whose fingerprint the collection does not hold yet; returns how many were new. */
  insertContradictions(rows: ContradictionRecord[]): Promise<number>;
  /** Matching contradictions, newest first, at most `limit` after skipping `offset` (default 0), and how many match in all. */
  listContradictions(
    collectionId: string,
    filter: ContradictionFilter,
    limit: number,
    offset?: number,
  ): Promise<{ total: number; items: ContradictionRecord[] }>;
  /** A contradiction by id, or null. */
  getContradiction(id: string): Promise<ContradictionRecord | null>;
  /** Set a contradiction's status. */
  setContradictionStatus(id: string, status: ContradictionStatus): Promise<void>;
}
