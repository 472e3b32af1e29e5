import type { RunMetrics } from '../evaluation/metrics.ts';
import type { EvaluationProgress, EvaluationRunStatus } from '../evaluation/run-state.ts';
import type { GoldenProposalStore } from './golden-proposal-store.ts';
import type { EVALUATION_TRIGGERS, GOLDEN_MATCHES } from '../vocabulary.ts';
import type { z } from 'zod';
import type { evaluationSettings } from '../evaluation/schemas.ts';

export type { GoldenProposalRecord } from './golden-proposal-store.ts';

/** What a golden set's targets name: a document id, a document's file name (with or without extension), or a section id. */
export type GoldenMatch = (typeof GOLDEN_MATCHES)[number];

/** One judged target of a query: its key (by the set's GoldenMatch) and a relevance grade (0 = judged not relevant). */
export interface GoldenJudgment {
  target: string;
  grade: number;
}

/** One query of a golden set, with what answers it. */
export interface GoldenQuery {
  id: string;
  query: string;
  relevant: GoldenJudgment[];
}

/** One version of a golden set of a collection (editing a set stores the next version; versions are never changed). */
export interface GoldenSetRecord {
  id: string;
  version: number;
  collectionId: string;
  name: string;
  matchBy: GoldenMatch;
  queries: GoldenQuery[];
  createdAt: string;
}

/** The query-time settings a run used (the collection's, with the run's patch applied). */
export type EvaluationSettings = z.output<typeof evaluationSettings>;

/** A target of a query and the rank it came back at (1-based; null when not in the results). */
export interface ExpectedTarget extends GoldenJudgment {
  rank: number | null;
}

/** What one query of a run expected and got. */
export interface QueryResult {
  id: string;
  query: string;
  ndcg10: number;
  recall: number;
  reciprocalRank: number;
  latencyMs: number;
  expected: ExpectedTarget[];
  /** The keys that came back, best first (up to the run's limit). */
  returned: string[];
}

/** Why a run was made: asked for, or one side of a guarded settings change. */
export type EvaluationTrigger = (typeof EVALUATION_TRIGGERS)[number];

/** An evaluation run (metrics and per-query results once completed). */
export interface EvaluationRunRecord {
  id: string;
  collectionId: string;
  setId: string;
  setVersion: number;
  trigger: EvaluationTrigger;
  status: EvaluationRunStatus;
  error: string | null;
  settings: EvaluationSettings;
  metrics: RunMetrics | null;
  perQuery: QueryResult[];
  progress: EvaluationProgress | null;
  /** The index table of the run's shadow copy while it may exist (dropped and cleared when the run ends). */
  shadowIndex: string | null;
  createdAt: string;
}

/** The golden set and the largest nDCG@10 drop a collection accepts from a query-time settings change. */
export interface EvaluationGuardRecord {
  collectionId: string;
  setId: string;
  maxNdcgDrop: number;
  updatedAt: string;
}

/** Golden sets, evaluation runs and guards (part of the MetadataStore); scoping by project is the caller's policy. */
export interface EvaluationStore extends GoldenProposalStore {
  /** Insert one version of a set (the (id, version) pair is unique). */
  insertGoldenSet(set: GoldenSetRecord): Promise<void>;
  /** A version of a set, or its newest version when `version` is undefined; null when absent. */
  getGoldenSet(id: string, version?: number): Promise<GoldenSetRecord | null>;
  /** The newest version of each set of a collection, oldest set first. */
  listGoldenSets(collectionId: string): Promise<GoldenSetRecord[]>;
  /** Delete every version of a set (its runs stay, naming the set id and version they scored). */
  deleteGoldenSet(id: string): Promise<void>;
  insertEvaluationRun(run: EvaluationRunRecord): Promise<void>;
  updateEvaluationRun(
    id: string,
    patch: Partial<Pick<EvaluationRunRecord, 'status' | 'error' | 'metrics' | 'perQuery' | 'progress' | 'shadowIndex'>>,
  ): Promise<void>;
  getEvaluationRun(id: string): Promise<EvaluationRunRecord | null>;
  /** The newest `limit` runs of a collection, newest first. */
  listEvaluationRuns(collectionId: string, limit: number): Promise<EvaluationRunRecord[]>;
  getEvaluationGuard(collectionId: string): Promise<EvaluationGuardRecord | null>;
  /** Insert or replace the guard of a collection. */
  putEvaluationGuard(guard: EvaluationGuardRecord): Promise<void>;
  deleteEvaluationGuard(collectionId: string): Promise<void>;
}
