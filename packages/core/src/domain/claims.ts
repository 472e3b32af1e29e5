import type { z } from 'zod';
import type * as responses from '../responses.ts';
import type { CONTRADICTION_SEVERITIES, CONTRADICTION_STATUSES } from '../vocabulary.ts';
/** Records of the claims feature (spec: Claim, ClaimMapItem, Contradiction, ContradictionRun). */

/** A factual claim extracted from one section of a ready document. */
export interface ClaimRecord {
  id: string;
  collectionId: string;
  documentId: string;
  sectionId: string;
  sectionTitle: string;
  text: string;
  /** A passage that really occurs in the section (aligned to the exact span), or null. */
  sourceText: string | null;
  /** 1 (low) to 5 (critical). */
  importance: number;
  /** Ordinal within the document, from 0. */
  position: number;
  createdAt: string;
}

/** A claim on the 2-D claim map. */
export type ClaimMapItem = z.output<typeof responses.claimMapItem>;

export { CONTRADICTION_SEVERITIES, CONTRADICTION_STATUSES } from '../vocabulary.ts';
export type ContradictionSeverity = (typeof CONTRADICTION_SEVERITIES)[number];

export type ContradictionStatus = (typeof CONTRADICTION_STATUSES)[number];

/** A claim taking part in a contradiction, with its document (spec: ContradictionClaimRef). */
export type ContradictionClaimRef = z.output<typeof responses.contradictionClaimRef>;

/** Claims of a collection that a model judged to disagree. */
export interface ContradictionRecord {
  id: string;
  collectionId: string;
  severity: ContradictionSeverity;
  status: ContradictionStatus;
  explanation: string;
  clusterTopicSummary: string | null;
  suggestedInstruction: string | null;
  claims: ContradictionClaimRef[];
  /** Sorted claim ids joined: a re-run that finds the same conflict does not store it twice. */
  fingerprint: string;
  createdAt: string;
}

export const CONTRADICTION_RUN_STATUSES = ['enqueued', 'running', 'completed', 'failed'] as const;
export type ContradictionRunStatus = (typeof CONTRADICTION_RUN_STATUSES)[number];

/** One contradiction detection run of a collection. */
export interface ContradictionRunRecord {
  id: string;
  collectionId: string;
  status: ContradictionRunStatus;
  claimsProcessed: number | null;
  clustersAnalyzed: number | null;
  contradictionsFound: number | null;
  model: string | null;
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
  createdAt: string;
}
