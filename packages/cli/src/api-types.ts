import type { QueryHit, ResearchEvent, ResearchSource } from '@dossier/core';

/** Shapes the server answers with, shared with core so the two cannot drift. */
export type { QueryHit, ResearchEvent, ResearchSource };

/** The shapes of the API answers the CLI reads (spec: Resources and their fields); only the fields it uses. */

export interface Collection {
  id: string;
  name: string;
  visibility: string;
  description: string | null;
  chunkSize: number;
  chunkOverlap: number;
  embeddingModel: string;
  createdAt: string;
  [field: string]: unknown;
}

export interface Document {
  id: string;
  collectionId: string;
  filename: string;
  status: string;
  fileSizeBytes: number | null;
  sectionCount: number | null;
  chunkCount: number | null;
  errorMessage: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  createdAt: string;
}

export interface Section {
  id: string;
  documentId: string;
  title: string;
  level: number;
  position: number;
  summary: string | null;
  chunkCount: number;
}

export interface Chunk {
  id: string;
  content: string;
  position: number;
  tokenCount: number;
}

export interface ScanHit {
  score: number;
  section: { id: string; title: string; level: number; summary: string | null };
  document: { id: string; filename: string };
}

/** Events of the research stream (spec: Research stream). */
export interface ProviderKey {
  id: string;
  provider: string;
  name: string;
  keyPreview: string;
  createdAt: string;
}

/** Statuses after which a document no longer changes (spec: the wait endpoint treats these as terminal). */
export const TERMINAL = new Set(['ready', 'error']);

/** Pipeline order of the statuses, for progress bars and for ignoring stale events. */
export const STATUS_ORDER = ['pending', 'uploading', 'processing', 'sectioned', 'embedded', 'ready'] as const;

export const statusRank = (status: string): number => (status === 'error' ? STATUS_ORDER.length : STATUS_ORDER.indexOf(status as (typeof STATUS_ORDER)[number]));

/** A document status event as read off the wire (status kept as the string the server sent). */
export interface DocumentEvent {
  documentId: string;
  collectionId: string;
  status: string;
  sectionCount?: number;
}

/** A claim (spec: Claim). */
export interface Claim {
  id: string;
  text: string;
  sourceText: string | null;
  sectionId: string;
  sectionTitle: string;
  documentId: string;
  importance: number;
  position: number;
}

/** A claim on the claim map (spec: ClaimMapItem). */
export interface ClaimMapItem extends Omit<Claim, 'position'> {
  documentName: string;
  x: number;
  y: number;
}

/** A contradiction (spec: Contradiction). */
export interface Contradiction {
  id: string;
  severity: 'low' | 'medium' | 'high';
  status: 'active' | 'dismissed' | 'applied';
  explanation: string;
  clusterTopicSummary: string | null;
  suggestedInstruction: string | null;
  claims: { claimId: string; text: string; documentId: string; documentName: string; sectionTitle: string }[];
  createdAt: string;
}

/** A contradiction run (spec: ContradictionRun). */
export interface ContradictionRun {
  id: string;
  status: 'enqueued' | 'running' | 'completed' | 'failed';
  claimsProcessed: number | null;
  clustersAnalyzed: number | null;
  contradictionsFound: number | null;
  error: string | null;
}

/** A duplicate group (spec: DuplicateGroup). */
export interface DuplicateGroup {
  id: string;
  canonicalDocumentId: string;
  detectedAt: string;
  members: { documentId: string; filename: string; relationship: 'canonical' | 'near_duplicate'; coverageToCanonical: number | null; coverageFromCanonical: number | null }[];
}

/** A duplicate detection run (spec: DuplicateRun). */
export interface DuplicateRun {
  id: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  jobsEnqueued: number | null;
  jobsProcessed: number | null;
  duplicatesDetected: number | null;
  duplicateGroupsCreated: number | null;
  error: string | null;
}
