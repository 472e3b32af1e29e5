/**
 * The evaluations group of the public API (`dossier.evaluations`, issue 38): golden sets of questions with their
 * relevant documents, runs that score a collection's retrieval on them (nDCG@10, recall, MRR), comparisons of
 * two runs, proposals of questions drafted by the fast model, and the guard that refuses a settings change that
 * would make retrieval worse. Every method needs the collection's owner.
 */
import type { Access } from '../access.ts';
import type {
  AcceptProposalInput,
  CreateGoldenSetInput,
  EvaluationComparisonView,
  EvaluationGuardInput,
  EvaluationRunSummaryView,
  EvaluationRunView,
  GoldenProposalView,
  GoldenSetView,
  ProposeQuestionsInput,
  RunEvaluationInput,
  UpdateGoldenSetInput,
} from '../evaluation/schemas.ts';
import type { GoldenSetUpload } from '../evaluation/upload.ts';

/** A collection's evaluation guard: runs of `setId` before and after a settings change may differ by `maxNdcgDrop`. */
export interface EvaluationGuardView {
  /** The golden set a change is scored on. */
  setId: string;
  /** The largest drop of nDCG@10 a change may cause. */
  maxNdcgDrop: number;
  /** When the guard was last set. */
  updatedAt: string;
}

/** Golden sets: versioned lists of questions with the documents, sections or file names that answer them. */
export interface GoldenSetApi {
  /**
   * Create a set from queries or from BEIR `queries` and `qrels` text.
   * @throws {DossierError} `not_found` (collection), `invalid_input` (bad set, too many queries).
   * @example
   * await dossier.evaluations.createSet(access, id, { name: 'smoke', queries: [{ query: 'leave policy', relevant: [{ target: 'hr.pdf' }] }], matchBy: 'filename' });
   */
  createSet(access: Access, collectionId: string, raw: CreateGoldenSetInput): Promise<GoldenSetView>;
  /**
   * Create a set from a multipart upload of BEIR files (the collection is checked first: a stranger gets 404).
   * @throws {DossierError} `not_found`, `invalid_input`, `payload_too_large`.
   */
  uploadSet(access: Access, collectionId: string, upload: GoldenSetUpload): Promise<GoldenSetView>;
  /**
   * Edit a set: stores and returns its next version (earlier versions and their runs stay).
   * @throws {DossierError} `not_found` (collection or set), `invalid_input`.
   */
  updateSet(access: Access, collectionId: string, setId: string, raw: UpdateGoldenSetInput): Promise<GoldenSetView>;
  /**
   * A set at a version (default its newest).
   * @throws {DossierError} `not_found`.
   */
  getSet(access: Access, collectionId: string, setId: string, version?: number): Promise<GoldenSetView>;
  /**
   * The collection's sets, each at its newest version.
   * @throws {DossierError} `not_found` (collection).
   */
  listSets(access: Access, collectionId: string): Promise<GoldenSetView[]>;
  /**
   * Delete a set with all its versions.
   * @throws {DossierError} `not_found`.
   */
  deleteSet(access: Access, collectionId: string, setId: string): Promise<void>;
  /**
   * Sample sections and let the fast model draft one question each; stored unconfirmed (nothing is scored yet).
   * @throws {DossierError} `not_found`, `invalid_input`, `conflict` (no section to ask about),
   *   `not_configured` (no fast model), `provider_error`.
   */
  proposeQuestions(access: Access, collectionId: string, raw?: ProposeQuestionsInput): Promise<GoldenProposalView[]>;
  /**
   * The collection's proposals, optionally of one status.
   * @throws {DossierError} `not_found`, `invalid_input` (unknown status).
   */
  listProposals(access: Access, collectionId: string, raw?: { status?: string }): Promise<GoldenProposalView[]>;
  /**
   * Accept a proposal (its question edited when `question` is given) into a set: the set's next version, or a new set.
   * @throws {DossierError} `not_found` (collection, proposal or set), `conflict` (already decided, or its document was
   *   deleted), `invalid_input` (the set is full).
   */
  acceptProposal(
    access: Access,
    collectionId: string,
    proposalId: string,
    raw: AcceptProposalInput,
  ): Promise<{ proposal: GoldenProposalView; set: GoldenSetView }>;
  /**
   * Reject a proposal (it stays, marked rejected).
   * @throws {DossierError} `not_found`, `conflict` (already decided).
   */
  rejectProposal(access: Access, collectionId: string, proposalId: string): Promise<GoldenProposalView>;
}

/** `dossier.evaluations`: golden sets, proposals, evaluation runs and their comparison, and the evaluation guard. */
export interface EvaluationService extends GoldenSetApi {
  /**
   * Run a set (a version, default the newest) against the collection's settings with an optional patch: synchronous
   * (the run comes back `completed`) unless the patch changes chunking or the embedding model, when the run comes
   * back `running` and a job tries it on a shadow copy (poll getRun until `completed` or `failed`).
   * @throws {DossierError} `not_found` (collection or set), `invalid_input` (bad patch).
   * @example
   * const run = await dossier.evaluations.run(access, id, { setId, settings: { queryExpansion: 'none' } });
   * console.log(run.metrics.ndcg10);
   */
  run(access: Access, collectionId: string, raw: RunEvaluationInput): Promise<EvaluationRunView>;
  /**
   * The newest runs, newest first, without their per-query rows.
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  listRuns(access: Access, collectionId: string, raw?: { limit?: number }): Promise<EvaluationRunSummaryView[]>;
  /**
   * One run with its per-query rows.
   * @throws {DossierError} `not_found`.
   */
  getRun(access: Access, collectionId: string, runId: string): Promise<EvaluationRunView>;
  /**
   * Compare two runs of one set (default the two newest): metric deltas and the queries that moved.
   * @throws {DossierError} `not_found`, `conflict` (a run is not completed).
   */
  compare(access: Access, collectionId: string, raw: { base?: string; candidate?: string }): Promise<EvaluationComparisonView>;
  /**
   * The collection's guard, or null when it has none.
   * @throws {DossierError} `not_found`.
   */
  getGuard(access: Access, collectionId: string): Promise<{ guard: EvaluationGuardView | null }>;
  /**
   * Set the guard: later collection updates are scored on the set before and after, and refused beyond `maxNdcgDrop`.
   * @throws {DossierError} `not_found` (collection or set), `invalid_input`.
   */
  putGuard(access: Access, collectionId: string, raw: EvaluationGuardInput): Promise<EvaluationGuardView>;
  /**
   * Remove the guard.
   * @throws {DossierError} `not_found`.
   */
  deleteGuard(access: Access, collectionId: string): Promise<void>;
}
