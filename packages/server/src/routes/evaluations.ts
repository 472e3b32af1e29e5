import { evaluationSchemas as ev } from '@dossier/core/internal';
import { GOLDEN_MATCHES } from '@dossier/core/vocabulary';
import { z } from 'zod';
import { readMultipart } from '../http/multipart.ts';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

const COLLECTION = '/v1/collections/:id';
const DENIED = { 401: 'API key required', 404: 'Collection, set or run not found (or not in your sandbox)' };
const versionQuery = z.strictObject({ version: z.coerce.number().int().min(1).optional() });
/** A golden-set upload: the two BEIR files (8 MB each at most) and the name and matchBy fields. */
const SET_UPLOAD_LIMITS = { maxFiles: 2, maxTotalBytes: 16_000_000 + 64_000, textFields: ['name', 'matchBy'] } as const;
const binary = (description: string) => ({ type: 'string', format: 'binary', contentMediaType: 'application/octet-stream', description });
const SET_UPLOAD_FORM = {
  type: 'object' as const,
  required: ['name', 'queries', 'qrels'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: "The golden set's name" },
    matchBy: { type: 'string', enum: [...GOLDEN_MATCHES], description: 'What the qrels corpus ids name (default filename)' },
    queries: binary('BEIR queries.jsonl: one {"_id", "text"} object a line, UTF-8, up to 8 MB'),
    qrels: binary('BEIR qrels/<split>.tsv: query-id, corpus-id, score (a header line is skipped), UTF-8, up to 8 MB'),
  },
};

/**
 * Evaluation (issue 38; docs/evaluation.md): golden sets of a collection (versioned: an edit stores the next
 * version), evaluation runs (synchronous, bounded by the set's size), comparisons, and the guard of query-time
 * settings. Project keys of the collection's sandbox only: running costs queries (metered) but changes nothing; the
 * guard is a collection setting, written by whoever may PATCH the collection.
 */
export function evaluationRoutes({ dossier }: RouteDeps): RouteDef[] {
  const e = dossier.evaluations;
  return [...goldenSetRoutes(e), ...proposalRoutes(e), ...runRoutes(e), ...guardRoutes(e)];
}

function goldenSetRoutes(e: RouteDeps['dossier']['evaluations']): RouteDef[] {
  const SETS = `${COLLECTION}/golden-sets`;
  return [
    route({
      method: 'post',
      path: SETS,
      operationId: 'createGoldenSet',
      tag: 'evaluations',
      auth: 'key',
      idempotent: true,
      maxBodyBytes: 20_000_000,
      summary: 'Create a golden set (version 1) from a JSON list of queries with their relevant targets, or from BEIR queries.jsonl + qrels.tsv contents',
      body: ev.createGoldenSetSchema,
      responses: { 201: { description: 'The set', schema: ev.goldenSet }, 400: 'Invalid input (e.g. malformed BEIR lines)', ...DENIED },
      handle: async (ctx, { caller, body, reply }) => reply(201, await e.createSet(caller, ctx.params.id, body)),
    }),
    route({
      method: 'post',
      path: `${SETS}/upload`,
      operationId: 'uploadGoldenSet',
      tag: 'evaluations',
      auth: 'key',
      idempotent: true,
      bodyType: 'multipart/form-data',
      multipartForm: SET_UPLOAD_FORM,
      longRunning: true,
      summary:
        'Create a golden set (version 1) from uploaded BEIR files: multipart file fields `queries` (queries.jsonl) and `qrels` (qrels/<split>.tsv), 8 MB each, and text fields `name` and optional `matchBy` (default filename)',
      responses: {
        201: { description: 'The set', schema: ev.goldenSet },
        400: 'A file missing, repeated, empty, not UTF-8, or with a malformed line (named)',
        413: 'A file over 8 MB',
        ...DENIED,
      },
      handle: async (ctx, { caller: access, reply }) => {
        const form = await readMultipart(ctx, SET_UPLOAD_LIMITS);
        reply(201, await e.uploadSet(access, ctx.params.id, form));
      },
    }),
    route({
      method: 'get',
      path: SETS,
      operationId: 'listGoldenSets',
      tag: 'evaluations',
      auth: 'key',
      summary: 'The newest version of each golden set of the collection',
      responses: { 200: { description: 'The sets', schema: ev.goldenSet.array() }, ...DENIED },
      handle: async (ctx, { caller, reply }) => reply(200, await e.listSets(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: `${SETS}/:setId`,
      operationId: 'getGoldenSet',
      tag: 'evaluations',
      auth: 'key',
      query: versionQuery,
      summary: 'A golden set: its newest version, or `?version=N`',
      responses: { 200: { description: 'The set', schema: ev.goldenSet }, 400: 'Invalid version', ...DENIED },
      handle: async (ctx, { caller, query, reply }) => reply(200, await e.getSet(caller, ctx.params.id, ctx.params.setId, query.version)),
    }),
    route({
      method: 'patch',
      path: `${SETS}/:setId`,
      operationId: 'updateGoldenSet',
      tag: 'evaluations',
      auth: 'key',
      maxBodyBytes: 20_000_000,
      summary: 'Edit a golden set: stores and returns its next version (name, matchBy, or the whole query list); earlier versions stay',
      body: ev.updateGoldenSetSchema,
      responses: { 200: { description: 'The new version', schema: ev.goldenSet }, 400: 'Invalid input', ...DENIED },
      handle: async (ctx, { caller, body, reply }) => reply(200, await e.updateSet(caller, ctx.params.id, ctx.params.setId, body)),
    }),
    route({
      method: 'delete',
      path: `${SETS}/:setId`,
      operationId: 'deleteGoldenSet',
      tag: 'evaluations',
      auth: 'key',
      summary: 'Delete every version of a golden set (its runs stay; a guard on it is removed)',
      responses: { 204: 'Deleted', ...DENIED },
      handle: async (ctx, { caller }) => {
        await e.deleteSet(caller, ctx.params.id, ctx.params.setId);
        noContent(ctx);
      },
    }),
  ];
}

/** Questions the fast model drafts from sampled sections; a person accepts (into a set), edits or rejects each. */
function proposalRoutes(e: RouteDeps['dossier']['evaluations']): RouteDef[] {
  const PROPOSALS = `${COLLECTION}/golden-proposals`;
  const DECIDED = { 409: 'The proposal was accepted or rejected already' };
  return [
    route({
      method: 'post',
      path: PROPOSALS,
      operationId: 'proposeGoldenQuestions',
      tag: 'evaluations',
      auth: 'key',
      longRunning: true,
      summary: 'Sample sections and let the fast model draft one question for each, stored unconfirmed (nothing is scored until a person accepts it)',
      body: ev.proposeQuestionsSchema,
      responses: {
        201: { description: 'The new proposals', schema: ev.goldenProposal.array() },
        400: 'Invalid input',
        409: 'No ready section with enough text',
        503: 'The model failed or proposed nothing usable',
        ...DENIED,
      },
      handle: async (ctx, { caller, body, reply }) => reply(201, await e.proposeQuestions(caller, ctx.params.id, body)),
    }),
    route({
      method: 'get',
      path: PROPOSALS,
      operationId: 'listGoldenProposals',
      tag: 'evaluations',
      auth: 'key',
      query: ev.listProposalsQuerySchema,
      summary: 'Proposed questions of the collection, oldest first (`?status=proposed` for those waiting)',
      responses: { 200: { description: 'The proposals', schema: ev.goldenProposal.array() }, 400: 'Invalid status', ...DENIED },
      handle: async (ctx, { caller, query, reply }) => reply(200, await e.listProposals(caller, ctx.params.id, query)),
    }),
    route({
      method: 'post',
      path: `${PROPOSALS}/:proposalId/accept`,
      operationId: 'acceptGoldenProposal',
      tag: 'evaluations',
      auth: 'key',
      summary:
        "Accept a proposed question (edited when `question` is given) into a set: the set's next version (`setId`) or a new set (`name`), judged by its source section",
      body: ev.acceptProposalSchema,
      responses: {
        200: { description: 'The proposal and the set version it went into', schema: ev.acceptedProposal },
        400: 'Invalid input',
        ...DECIDED,
        ...DENIED,
      },
      handle: async (ctx, { caller, body, reply }) => reply(200, await e.acceptProposal(caller, ctx.params.id, ctx.params.proposalId, body)),
    }),
    route({
      method: 'post',
      path: `${PROPOSALS}/:proposalId/reject`,
      operationId: 'rejectGoldenProposal',
      tag: 'evaluations',
      auth: 'key',
      summary: 'Reject a proposed question (it never joins a set)',
      responses: { 200: { description: 'The proposal', schema: ev.goldenProposal }, ...DECIDED, ...DENIED },
      handle: async (ctx, { caller, reply }) => reply(200, await e.rejectProposal(caller, ctx.params.id, ctx.params.proposalId)),
    }),
  ];
}

function runRoutes(e: RouteDeps['dossier']['evaluations']): RouteDef[] {
  const RUNS = `${COLLECTION}/evaluations`;
  return [
    route({
      method: 'post',
      path: RUNS,
      operationId: 'runEvaluation',
      tag: 'evaluations',
      auth: 'key',
      longRunning: true,
      summary:
        "Run a golden set against the collection's settings, optionally with a settings patch tried without changing the collection. A patch of query-time settings answers 201 with the finished run; one that changes chunking or the embedding model answers 202 with the run `running`: a job builds a shadow copy, runs the set and drops the copy (poll GET …/evaluations/{runId} until `completed` or `failed`; `evaluation.completed` is sent)",
      body: ev.runEvaluationSchema,
      responses: {
        201: { description: 'The finished run with per-query results', schema: ev.evaluationRun },
        202: {
          description: 'The queued run (status running, metrics null) that tries chunking or an embedding model on a shadow copy',
          schema: ev.evaluationRun,
        },
        400: 'Invalid input',
        429: 'Monthly query limit reached',
        ...DENIED,
      },
      handle: async (ctx, { caller, body, reply }) => {
        const run = await e.run(caller, ctx.params.id, body);
        reply(run.status === 'running' ? 202 : 201, run);
      },
    }),
    route({
      method: 'get',
      path: RUNS,
      operationId: 'listEvaluations',
      tag: 'evaluations',
      auth: 'key',
      query: ev.listRunsQuerySchema,
      summary: 'Runs of the collection, newest first (without per-query results)',
      responses: { 200: { description: 'The runs', schema: ev.evaluationRunSummary.array() }, 400: 'Invalid limit', ...DENIED },
      handle: async (ctx, { caller, query, reply }) => reply(200, await e.listRuns(caller, ctx.params.id, query)),
    }),
    route({
      method: 'get',
      path: `${RUNS}/compare`,
      operationId: 'compareEvaluations',
      tag: 'evaluations',
      auth: 'key',
      query: ev.compareRunsQuerySchema,
      summary: 'Two runs side by side: metric deltas (candidate − base) and the queries whose nDCG@10 changed, worst first',
      responses: {
        200: { description: 'The comparison', schema: ev.evaluationComparison },
        400: 'base and candidate are required',
        409: 'A run is not completed',
        ...DENIED,
      },
      handle: async (ctx, { caller, query, reply }) => reply(200, await e.compare(caller, ctx.params.id, query)),
    }),
    route({
      method: 'get',
      path: `${RUNS}/:runId`,
      operationId: 'getEvaluation',
      tag: 'evaluations',
      auth: 'key',
      summary: 'A run with its per-query results (expected targets with their rank, what came back)',
      responses: { 200: { description: 'The run', schema: ev.evaluationRun }, ...DENIED },
      handle: async (ctx, { caller, reply }) => reply(200, await e.getRun(caller, ctx.params.id, ctx.params.runId)),
    }),
  ];
}

function guardRoutes(e: RouteDeps['dossier']['evaluations']): RouteDef[] {
  const GUARD = `${COLLECTION}/evaluation-guard`;
  return [
    route({
      method: 'get',
      path: GUARD,
      operationId: 'getEvaluationGuard',
      tag: 'evaluations',
      auth: 'key',
      summary: "The collection's evaluation guard (null when it has none)",
      responses: { 200: { description: 'The guard or null', schema: ev.evaluationGuardState }, ...DENIED },
      handle: async (ctx, { caller, reply }) => reply(200, await e.getGuard(caller, ctx.params.id)),
    }),
    route({
      method: 'put',
      path: GUARD,
      operationId: 'putEvaluationGuard',
      tag: 'evaluations',
      auth: 'key',
      summary: 'Guard query-time settings changes with a golden set: a PATCH lowering nDCG@10 by more than maxNdcgDrop answers 409 unless force',
      body: ev.evaluationGuardSchema,
      responses: { 200: { description: 'The guard', schema: ev.evaluationGuard }, 400: 'Invalid input', ...DENIED },
      handle: async (ctx, { caller, body, reply }) => reply(200, await e.putGuard(caller, ctx.params.id, body)),
    }),
    route({
      method: 'delete',
      path: GUARD,
      operationId: 'deleteEvaluationGuard',
      tag: 'evaluations',
      auth: 'key',
      summary: 'Remove the evaluation guard',
      responses: { 204: 'Removed', ...DENIED },
      handle: async (ctx, { caller }) => {
        await e.deleteGuard(caller, ctx.params.id);
        noContent(ctx);
      },
    }),
  ];
}
