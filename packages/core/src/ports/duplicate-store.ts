import type { DuplicateFingerprints, DuplicateGroupRecord, DuplicateRunRecord } from '../domain/duplicates.ts';
import type { ServiceEvent } from '../events/catalogue.ts';

/** A document sharing fingerprints with another, and how many. */
export interface FingerprintMatch {
  documentId: string;
  shared: number;
  /** The matching document's own fingerprint count. */
  fingerprintCount: number;
}

/** Near-duplicate detection's store port: the fingerprint index, groups and runs. */
export interface DuplicateStore {
  /** Replace the fingerprints of each listed document (one transaction). */
  putFingerprints(entries: DuplicateFingerprints[]): Promise<void>;
  /**
   * Record the fingerprints of each listed document for the next rebuildFingerprintPostings of its collection
   * (a detection run's bulk write); until then lookups still see the document's previous fingerprints.
   */
  putDocumentFingerprints(entries: DuplicateFingerprints[]): Promise<void>;
  /** Make the collection's fingerprint lookups (matches, pairs) reflect every fingerprint recorded for its documents. */
  rebuildFingerprintPostings(collectionId: string): Promise<void>;
  /** Delete a document's fingerprints (its content was replaced; the next check indexes the new ones). */
  deleteFingerprints(documentId: string): Promise<void>;
  /** Documents of the collection (other than `documentId`) sharing at least one of these fingerprints, ignoring fingerprints held by more than `maxPosting` documents. */
  fingerprintMatches(collectionId: string, documentId: string, fingerprints: number[], maxPosting: number): Promise<FingerprintMatch[]>;
  /** Every pair of the collection's documents sharing at least `minShared` fingerprints (fingerprints held by more than `maxPosting` documents ignored). */
  fingerprintPairs(collectionId: string, minShared: number, maxPosting: number): Promise<{ left: FingerprintMatch; right: FingerprintMatch; shared: number }[]>;
  /** Ids of the collection's documents that have fingerprints. */
  fingerprintedDocuments(collectionId: string): Promise<string[]>;

  /** Create a group with its members. */
  insertDuplicateGroup(group: DuplicateGroupRecord): Promise<void>;
  /** Replace a group's canonical and members (members not listed leave the group). */
  replaceDuplicateGroup(group: DuplicateGroupRecord): Promise<void>;
  /** Delete a group (its members leave it). */
  deleteDuplicateGroup(id: string): Promise<void>;
  /** A group by id, or null. */
  getDuplicateGroup(id: string): Promise<DuplicateGroupRecord | null>;
  /** The group a document belongs to, or null. */
  duplicateGroupOf(documentId: string): Promise<DuplicateGroupRecord | null>;
  /** A page of the collection's groups, newest first, and the total. */
  listDuplicateGroups(collectionId: string, limit: number, offset: number): Promise<{ total: number; items: DuplicateGroupRecord[] }>;
  /** Record that these documents were disbanded: detection never groups two of them together again. */
  dismissDuplicatePairs(collectionId: string, documentIds: string[]): Promise<void>;
  /** Whether two documents were disbanded from one group. */
  isDismissedPair(left: string, right: string): Promise<boolean>;

  /** Insert a run. */
  insertDuplicateRun(run: DuplicateRunRecord): Promise<void>;
  /** Change a run's fields, recording `events` (its completion) in the same transaction. */
  updateDuplicateRun(id: string, patch: Partial<DuplicateRunRecord>, events?: ServiceEvent[]): Promise<void>;
  /** Add one to a run's jobsProcessed and return the run as it is after. */
  countDuplicateJob(id: string): Promise<DuplicateRunRecord>;
  /** The newest run of a collection, or null. */
  latestDuplicateRun(collectionId: string): Promise<DuplicateRunRecord | null>;
}
