import type { CollectionStore } from '../ports/collection-store.ts';
import type { UsageStore } from '../ports/research-store.ts';
import type { SectionStore } from '../ports/section-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { GoldenProposalStore } from '../ports/golden-proposal-store.ts';
import type { EvaluationStore } from '../ports/evaluation-store.ts';
import { type Access, requireCollection } from '../access.ts';
import type { EvaluationService } from '../api/evaluations.ts';
import type { ContextPart } from '../context.ts';
import { DossierError, invalid, notFound } from '../domain/errors.ts';
import type { Collection } from '../domain/types.ts';
import type { EvaluationRunRecord, EvaluationTrigger, GoldenQuery, GoldenSetRecord } from '../ports/evaluation-store.ts';
import { parseInput } from '../schemas.ts';
import type { RetrievalSettings } from '../search/query.ts';
import { meterUsage } from '../usage/meter.ts';
import { requireMeterRoom } from '../usage/quotas.ts';
import { newId, nowIso } from '../util/ids.ts';
import { goldenQueriesFromBeir } from './beir.ts';
import { effectiveSettings, runGoldenSet } from './runner.ts';
import { createBodyOfUpload, type GoldenSetUpload } from './upload.ts';
import { proposalMethods } from './proposals.ts';
import { enqueueShadowRun } from './jobs.ts';
import type { RunMetrics } from './metrics.ts';
import { reindexSettingsOf, shadowEmbedder } from './shadow.ts';
import {
  type CreateGoldenSetInput,
  compareRunsQuerySchema,
  createGoldenSetSchema,
  type EvaluationComparisonView,
  type EvaluationGuardInput,
  type EvaluationRunSummaryView,
  type EvaluationRunView,
  type EvaluationSettingsPatch,
  evaluationGuardSchema,
  type GoldenSetView,
  listRunsQuerySchema,
  type RunEvaluationInput,
  runEvaluationSchema,
  type UpdateGoldenSetInput,
  updateGoldenSetSchema,
} from './schemas.ts';

const setView = (s: GoldenSetRecord): GoldenSetView => ({
  id: s.id,
  version: s.version,
  name: s.name,
  matchBy: s.matchBy,
  queryCount: s.queries.length,
  queries: s.queries,
  createdAt: s.createdAt,
});

const runSummary = (r: EvaluationRunRecord): EvaluationRunSummaryView => ({
  id: r.id,
  setId: r.setId,
  setVersion: r.setVersion,
  trigger: r.trigger,
  status: r.status,
  error: r.error,
  progress: r.progress,
  settings: r.settings,
  metrics: r.metrics,
  createdAt: r.createdAt,
});

const runView = (r: EvaluationRunRecord): EvaluationRunView => ({ ...runSummary(r), perQuery: r.perQuery });

/** The queries of a create or edit body: the JSON list (ids default to positions) or the BEIR files. */
function queriesOf(body: {
  queries?: { id?: string; query: string; relevant: { target: string; grade: number }[] }[];
  beir?: { queries: string; qrels: string };
}): GoldenQuery[] | undefined {
  if (body.beir) return goldenQueriesFromBeir(body.beir.queries, body.beir.qrels);
  if (!body.queries) return undefined;
  const queries = body.queries.map((q, i) => ({ id: q.id ?? String(i + 1), query: q.query, relevant: q.relevant }));
  const ids = new Set(queries.map((q) => q.id));
  if (ids.size !== queries.length) throw invalid('query ids must be unique within a set');
  return queries;
}

type Owned = (access: Access, collectionId: string) => Promise<Collection>;
type SetOf = (c: Collection, setId: string, version?: number) => Promise<GoldenSetRecord>;
/** A run stored complete (one that needed no shadow copy). */
export type CompletedRun = EvaluationRunRecord & { metrics: RunMetrics };
type Evaluate = (c: Collection, set: GoldenSetRecord, patch: EvaluationSettingsPatch | undefined, trigger: EvaluationTrigger) => Promise<CompletedRun>;
type Enqueue = (c: Collection, set: GoldenSetRecord, patch: EvaluationSettingsPatch | undefined) => Promise<EvaluationRunRecord | null>;

/** Golden sets, evaluation runs and comparisons of a collection (issue 38). Every call needs the collection's project key. */
/** The evaluation service with the two internals the collection guard and its jobs use (kept off `Dossier`). */
export interface EvaluationServiceWithInternals extends EvaluationService {
  evaluate: Evaluate;
  setOf: SetOf;
}

export function evaluationService(
  ctx: ContextPart<
    'blobs' | 'embedders' | 'index' | 'models' | 'plans' | 'queue' | 'reranker' | 'wakeWorkers',
    CollectionStore & EvaluationStore & UsageStore & SectionStore & DocumentStore & GoldenProposalStore
  >,
  server: RetrievalSettings,
): EvaluationServiceWithInternals {
  const owned: Owned = (access, collectionId) => requireCollection(ctx.store, access, collectionId, 'write');
  const setOf: SetOf = async (c, setId, version) => {
    const set = setId.length <= 100 ? await ctx.store.getGoldenSet(setId, version) : null;
    if (!set || set.collectionId !== c.id) throw notFound(version === undefined ? 'Golden set' : `Golden set version ${version}`);
    return set;
  };
  /** Run a set against the collection's query-time settings with a patch that needs no re-indexing; meter, store and return the run. */
  const evaluate: Evaluate = async (c, set, patch, trigger) => {
    const sandbox = { projectId: c.projectId, env: c.env };
    await requireMeterRoom(ctx, sandbox, 'queries', set.queries.length);
    const settings = { ...effectiveSettings(c, server, patch), shadow: false };
    const { metrics, perQuery } = await runGoldenSet(ctx, c, set, settings, server);
    const run: CompletedRun = {
      id: newId(),
      collectionId: c.id,
      setId: set.id,
      setVersion: set.version,
      trigger,
      status: 'completed',
      error: null,
      settings,
      metrics,
      perQuery,
      progress: null,
      shadowIndex: null,
      createdAt: nowIso(),
    };
    await ctx.store.insertEvaluationRun(run);
    await meterUsage(ctx.store, sandbox, 'queries', set.queries.length);
    return run;
  };
  /** A run whose patch needs re-indexing is stored `running` and queued (jobs.ts builds the shadow copy); null when none is needed. */
  const enqueue: Enqueue = async (c, set, patch) => {
    const reindex = reindexSettingsOf(c, patch);
    if (!reindex) return null;
    await requireMeterRoom(ctx, { projectId: c.projectId, env: c.env }, 'queries', set.queries.length);
    await shadowEmbedder(ctx, c, reindex);
    const run: EvaluationRunRecord = {
      id: newId(),
      collectionId: c.id,
      setId: set.id,
      setVersion: set.version,
      trigger: 'manual',
      status: 'running',
      error: null,
      settings: { ...effectiveSettings(c, server, patch), shadow: true },
      metrics: null,
      perQuery: [],
      progress: null,
      shadowIndex: null,
      createdAt: nowIso(),
    };
    await ctx.store.insertEvaluationRun(run);
    await enqueueShadowRun(ctx, run);
    return run;
  };
  return {
    evaluate,
    setOf,
    ...setMethods(ctx.store, owned, setOf),
    ...runMethods(ctx.store, owned, setOf, evaluate, enqueue),
    ...guardMethods(ctx.store, owned, setOf),
    ...proposalMethods(ctx, setOf, setView),
  };
}

/** Golden sets: create (version 1; from JSON or uploaded BEIR files), edit (the next version), read, list, delete. */
function setMethods(store: EvaluationStore, owned: Owned, setOf: SetOf) {
  async function createSet(access: Access, collectionId: string, raw: CreateGoldenSetInput): Promise<GoldenSetView> {
    const c = await owned(access, collectionId);
    const body = parseInput(createGoldenSetSchema, raw);
    const set: GoldenSetRecord = {
      id: newId(),
      version: 1,
      collectionId: c.id,
      name: body.name,
      matchBy: body.matchBy ?? (body.beir ? 'filename' : 'document'),
      queries: queriesOf(body) ?? [],
      createdAt: nowIso(),
    };
    await store.insertGoldenSet(set);
    return setView(set);
  }
  return {
    createSet,
    /** Create a set from a multipart upload of BEIR files (the collection is checked first: a stranger gets 404). */
    async uploadSet(access: Access, collectionId: string, upload: GoldenSetUpload): Promise<GoldenSetView> {
      await owned(access, collectionId);
      return createSet(access, collectionId, createBodyOfUpload(upload));
    },
    /** Edit a set: stores and returns its next version (earlier versions and their runs stay). */
    async updateSet(access: Access, collectionId: string, setId: string, raw: UpdateGoldenSetInput): Promise<GoldenSetView> {
      const c = await owned(access, collectionId);
      const body = parseInput(updateGoldenSetSchema, raw);
      const current = await setOf(c, setId);
      const next: GoldenSetRecord = {
        ...current,
        version: current.version + 1,
        name: body.name ?? current.name,
        matchBy: body.matchBy ?? current.matchBy,
        queries: queriesOf(body) ?? current.queries,
        createdAt: nowIso(),
      };
      await store.insertGoldenSet(next);
      return setView(next);
    },
    async getSet(access: Access, collectionId: string, setId: string, version?: number): Promise<GoldenSetView> {
      return setView(await setOf(await owned(access, collectionId), setId, version));
    },
    async listSets(access: Access, collectionId: string): Promise<GoldenSetView[]> {
      const c = await owned(access, collectionId);
      return (await store.listGoldenSets(c.id)).map(setView);
    },
    async deleteSet(access: Access, collectionId: string, setId: string): Promise<void> {
      const c = await owned(access, collectionId);
      await setOf(c, setId);
      await store.deleteGoldenSet(setId);
      const guard = await store.getEvaluationGuard(c.id);
      if (guard?.setId === setId) await store.deleteEvaluationGuard(c.id);
    },
  };
}

/** Runs: run a set (synchronously, or queued when it needs a shadow copy), list, read, compare. */
function runMethods(store: EvaluationStore, owned: Owned, setOf: SetOf, evaluate: Evaluate, enqueue: Enqueue) {
  async function runOf(c: Collection, runId: string): Promise<EvaluationRunRecord> {
    const run = runId.length <= 100 ? await store.getEvaluationRun(runId) : null;
    if (!run || run.collectionId !== c.id) throw notFound('Evaluation run');
    return run;
  }
  return {
    /**
     * Run a set (a version, default the newest) against the collection's settings with an optional patch: synchronous
     * (the run comes back `completed`) unless the patch changes chunking or the embedding model, when the run comes
     * back `running` and a job tries it on a shadow copy (poll getRun until `completed` or `failed`).
     */
    async run(access: Access, collectionId: string, raw: RunEvaluationInput): Promise<EvaluationRunView> {
      const c = await owned(access, collectionId);
      const body = parseInput(runEvaluationSchema, raw);
      const set = await setOf(c, body.setId, body.version);
      return runView((await enqueue(c, set, body.settings)) ?? (await evaluate(c, set, body.settings, 'manual')));
    },
    async listRuns(access: Access, collectionId: string, raw: { limit?: number } = {}): Promise<EvaluationRunSummaryView[]> {
      const c = await owned(access, collectionId);
      const { limit } = parseInput(listRunsQuerySchema, raw);
      return (await store.listEvaluationRuns(c.id, limit)).map(runSummary);
    },
    async getRun(access: Access, collectionId: string, runId: string): Promise<EvaluationRunView> {
      return runView(await runOf(await owned(access, collectionId), runId));
    },
    async compare(access: Access, collectionId: string, raw: { base?: string; candidate?: string }): Promise<EvaluationComparisonView> {
      const c = await owned(access, collectionId);
      const q = parseInput(compareRunsQuerySchema, raw);
      if (!q.base || !q.candidate) throw invalid('base and candidate (run ids) are required');
      const [base, candidate] = [await runOf(c, q.base), await runOf(c, q.candidate)];
      if (!isCompleted(base) || !isCompleted(candidate)) throw new DossierError('conflict', 'Only completed runs can be compared');
      return compareRuns(base, candidate);
    },
  };
}

/** Two runs side by side: metric deltas (candidate − base) and the queries whose nDCG@10 changed, worst first. */
const isCompleted = (r: EvaluationRunRecord): r is CompletedRun => r.status === 'completed' && r.metrics !== null;

export function compareRuns(base: CompletedRun, candidate: CompletedRun): EvaluationComparisonView {
  const before = new Map(base.perQuery.map((q) => [q.id, q]));
  const queries = candidate.perQuery.flatMap((q) => {
    const b = before.get(q.id);
    if (!b || Math.abs(q.ndcg10 - b.ndcg10) < 1e-9) return [];
    return [{ id: q.id, query: q.query, baseNdcg10: b.ndcg10, candidateNdcg10: q.ndcg10, delta: q.ndcg10 - b.ndcg10 }];
  });
  const d = (pick: (r: CompletedRun) => number) => pick(candidate) - pick(base);
  return {
    base: runSummary(base),
    candidate: runSummary(candidate),
    delta: {
      ndcg10: d((r) => r.metrics.ndcg10),
      recall: d((r) => r.metrics.recall),
      mrr: d((r) => r.metrics.mrr),
      latencyP50Ms: d((r) => r.metrics.latencyP50Ms),
      latencyP95Ms: d((r) => r.metrics.latencyP95Ms),
    },
    queries: queries.sort((a, b) => a.delta - b.delta),
  };
}

/** The guard of a collection's query-time settings: read, set, remove. */
function guardMethods(store: EvaluationStore, owned: Owned, setOf: SetOf) {
  const view = (g: { setId: string; maxNdcgDrop: number; updatedAt: string }) => ({ setId: g.setId, maxNdcgDrop: g.maxNdcgDrop, updatedAt: g.updatedAt });
  return {
    /** The collection's guard, or null when it has none. */
    async getGuard(access: Access, collectionId: string) {
      const g = await store.getEvaluationGuard((await owned(access, collectionId)).id);
      return { guard: g ? view(g) : null };
    },
    async putGuard(access: Access, collectionId: string, raw: EvaluationGuardInput) {
      const c = await owned(access, collectionId);
      const body = parseInput(evaluationGuardSchema, raw);
      await setOf(c, body.setId);
      const guard = { collectionId: c.id, setId: body.setId, maxNdcgDrop: body.maxNdcgDrop, updatedAt: nowIso() };
      await store.putEvaluationGuard(guard);
      return view(guard);
    },
    async deleteGuard(access: Access, collectionId: string): Promise<void> {
      await store.deleteEvaluationGuard((await owned(access, collectionId)).id);
    },
  };
}

export type { EvaluationService };
