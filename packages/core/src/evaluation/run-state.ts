import type { EVALUATION_STAGES, RUN_STATUSES } from '../vocabulary.ts';
/** A run's state: synchronous runs are stored `completed`; a shadow-copy run is `running` until its job ends. */
export type EvaluationRunStatus = (typeof RUN_STATUSES)[number];

/** How far a queued run got: documents re-indexed into its shadow copy, then queries searched. */
export interface EvaluationProgress {
  stage: (typeof EVALUATION_STAGES)[number];
  done: number;
  total: number;
}
