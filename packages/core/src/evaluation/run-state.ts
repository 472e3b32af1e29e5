/** A run's state: synchronous runs are stored `completed`; a shadow-copy run is `running` until its job ends. */
export type EvaluationRunStatus = 'running' | 'completed' | 'failed';

/** How far a queued run got: documents re-indexed into its shadow copy, then queries searched. */
export interface EvaluationProgress {
  stage: 'indexing' | 'searching';
  done: number;
  total: number;
}
