import type { z } from 'zod';
import type * as responses from '../responses.ts';
/** Records of near-duplicate detection (spec: DuplicateGroup, DuplicateRun). */

export const DUPLICATE_RELATIONSHIPS = ['canonical', 'near_duplicate'] as const;
export type DuplicateRelationship = (typeof DUPLICATE_RELATIONSHIPS)[number];

/** Where a shared passage is in one document: a span of its Markdown (UTF-16 offsets, end exclusive) and its start. */
export type PassageSpan = z.output<typeof responses.passageSpan>;

/** A passage a member shares with its group's canonical: where it is in each of the two documents. */
export interface SharedPassage {
  member: PassageSpan;
  canonical: PassageSpan;
}

/** A member of a duplicate group; coverages are null for the canonical. */
export interface DuplicateMemberRecord {
  documentId: string;
  filename: string;
  relationship: DuplicateRelationship;
  /** Share of this member's text found in the canonical. */
  coverageToCanonical: number | null;
  /** Share of the canonical's text found in this member. */
  coverageFromCanonical: number | null;
  /** The passages this member shares with the canonical (absent for the canonical and for groups formed before issue 40). */
  sharedPassages?: SharedPassage[];
}

export interface DuplicateGroupRecord {
  id: string;
  collectionId: string;
  canonicalDocumentId: string;
  detectedAt: string;
  members: DuplicateMemberRecord[];
}

export const DUPLICATE_RUN_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type DuplicateRunStatus = (typeof DUPLICATE_RUN_STATUSES)[number];

export interface DuplicateRunRecord {
  id: string;
  collectionId: string;
  status: DuplicateRunStatus;
  jobsEnqueued: number | null;
  jobsProcessed: number | null;
  duplicatesDetected: number | null;
  duplicateGroupsCreated: number | null;
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
  createdAt: string;
}

/** What detection keeps of a document: its size and its fingerprints (the persisted candidate index). */
export interface DuplicateFingerprints {
  documentId: string;
  collectionId: string;
  shingleCount: number;
  fingerprints: number[];
}
