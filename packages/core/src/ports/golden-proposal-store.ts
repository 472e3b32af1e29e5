import type { PROPOSAL_STATUSES } from '../vocabulary.ts';
/** A question the fast model drafted from one section; a person accepts (into a set), edits or rejects it. */
export interface GoldenProposalRecord {
  id: string;
  collectionId: string;
  documentId: string;
  sectionId: string;
  sectionTitle: string;
  /** The start of the section's text, for the person judging the question. */
  excerpt: string;
  question: string;
  status: (typeof PROPOSAL_STATUSES)[number];
  /** The set an accepted question went into, and its version (null until accepted). */
  setId: string | null;
  setVersion: number | null;
  createdAt: string;
  decidedAt: string | null;
}

/** Proposed golden questions (issue 38; part of the EvaluationStore): drafted by the fast model, decided by a person. */
export interface GoldenProposalStore {
  insertGoldenProposals(proposals: GoldenProposalRecord[]): Promise<void>;
  getGoldenProposal(id: string): Promise<GoldenProposalRecord | null>;
  /** A collection's proposals (of one status when given), oldest first. */
  listGoldenProposals(collectionId: string, status?: GoldenProposalRecord['status']): Promise<GoldenProposalRecord[]>;
  /** Record a decision; false when the proposal was decided already (only `proposed` ones change). */
  decideGoldenProposal(id: string, decision: Pick<GoldenProposalRecord, 'status' | 'question' | 'setId' | 'setVersion' | 'decidedAt'>): Promise<boolean>;
}
