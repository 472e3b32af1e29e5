import { z } from 'zod';
import { retrievalSettingsSchema } from '../schemas.ts';
import { EVALUATION_STAGES, EVALUATION_TRIGGERS, GOLDEN_MATCHES, PROPOSAL_STATUSES, RUN_STATUSES } from '../vocabulary.ts';

/**
 * Request and response schemas of evaluations (issue 38): golden sets, runs, comparisons and the guard of a
 * collection's query-time settings. The server validates with them and publishes them in its OpenAPI document.
 */

/** Largest golden set (runs are synchronous and bounded by it: see docs/evaluation.md). */
export const MAX_GOLDEN_QUERIES = 2000;
/** Largest BEIR upload text of each file (queries.jsonl may carry the whole corpus' queries; unjudged ones are dropped). */
const MAX_BEIR_CHARS = 8_000_000;
/** Largest BEIR file of a multipart upload, in bytes (the same bound as the JSON body's text). */
export const MAX_BEIR_BYTES = MAX_BEIR_CHARS;

const matchBySchema = z.enum(GOLDEN_MATCHES).describe('What targets name: a document id, a file name (with or without extension), or a section id');
const judgment = z.strictObject({ target: z.string().trim().min(1).max(500), grade: z.number().int().min(0).max(10).default(1) });
const goldenQueryInput = z.strictObject({
  id: z.string().trim().min(1).max(200).optional().describe('Defaults to the 1-based position in the list'),
  query: z.string().trim().min(1).max(2000),
  relevant: z.array(judgment).min(1).max(100),
});
const beirUpload = z
  .strictObject({
    queries: z.string().min(1).max(MAX_BEIR_CHARS).describe('Contents of BEIR queries.jsonl: one {"_id", "text"} object a line'),
    qrels: z.string().min(1).max(MAX_BEIR_CHARS).describe('Contents of BEIR qrels/<split>.tsv: query-id, corpus-id, score (a header line is skipped)'),
  })
  .describe('BEIR files; corpus ids are matched by file name (a document `<corpus-id>.md` matches `<corpus-id>`) unless matchBy says otherwise');

const setContent = {
  queries: z.array(goldenQueryInput).min(1).max(MAX_GOLDEN_QUERIES).optional().describe('The queries with what answers them'),
  beir: beirUpload.optional(),
};

export const createGoldenSetSchema = z
  .strictObject({ name: z.string().trim().min(1).max(200), matchBy: matchBySchema.optional(), ...setContent })
  .refine((b) => (b.queries === undefined) !== (b.beir === undefined), { message: 'send exactly one of queries or beir' });

export const updateGoldenSetSchema = z
  .strictObject({ name: z.string().trim().min(1).max(200).optional(), matchBy: matchBySchema.optional(), ...setContent })
  .refine((b) => !(b.queries !== undefined && b.beir !== undefined), { message: 'send at most one of queries or beir' });

const retrieval = retrievalSettingsSchema.shape;
/** The settings a search applies at query time (no re-indexing): what the guard watches and a run may change. */
const queryTimeSettings = retrievalSettingsSchema.pick({ queryExpansion: true, enableReranking: true, lexicalWeight: true, vectorWeight: true, rrfK: true });

/** Query-time settings a run may try without changing the collection. */
const shadowSettings = {
  chunkSize: retrieval.chunkSize.optional().describe('Tried on a shadow copy of the index, re-chunked from the stored Markdown and dropped after'),
  chunkOverlap: retrieval.chunkOverlap.optional().describe('Tried on a shadow copy, as chunkSize'),
  embeddingModel: retrieval.embeddingModel.optional().describe("Tried on a shadow copy re-embedded with this model ('none': lexical only)"),
};
const { queryExpansion, enableReranking, ...fusion } = queryTimeSettings.partial().shape;
export const evaluationSettingsPatchSchema = z.strictObject({
  queryExpansion,
  enableReranking,
  limit: z.number().int().min(1).max(100).optional().describe('Results per query: the k of recall@k and MRR (default 10)'),
  ...fusion,
  ...shadowSettings,
});

export const runEvaluationSchema = z.strictObject({
  setId: z.string().min(1).max(100),
  version: z.number().int().min(1).optional().describe('Default: the newest version'),
  settings: evaluationSettingsPatchSchema.optional(),
});

export const listRunsQuerySchema = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) });
/** Both are required (checked after the collection is found, so a stranger's request gets 404 before any 400). */
export const compareRunsQuerySchema = z.strictObject({ base: z.string().min(1).max(100).optional(), candidate: z.string().min(1).max(100).optional() });

export const evaluationGuardSchema = z.strictObject({
  setId: z.string().min(1).max(100),
  maxNdcgDrop: z.number().min(0).max(1).describe('Largest accepted fall of nDCG@10 (absolute, e.g. 0.01)'),
});

export const proposeQuestionsSchema = z.strictObject({
  count: z.number().int().min(1).max(20).default(5).describe('Sections to sample; the fast model drafts one question for each (1 to 20, default 5)'),
});
export const listProposalsQuerySchema = z.strictObject({ status: z.enum(PROPOSAL_STATUSES).optional() });
export const acceptProposalSchema = z
  .strictObject({
    setId: z.string().min(1).max(100).optional().describe('Add the question to this set (stores its next version)'),
    name: z.string().trim().min(1).max(200).optional().describe('Or start a new set with this name'),
    matchBy: matchBySchema.optional().describe('Of a new set: what its targets name (default section)'),
    question: z.string().trim().min(1).max(2000).optional().describe("The question as edited by the person (default: the model's)"),
  })
  .refine((b) => (b.setId === undefined) !== (b.name === undefined), { message: 'send exactly one of setId or name' })
  .refine((b) => !(b.setId !== undefined && b.matchBy !== undefined), { message: 'matchBy applies to a new set only' });

export type ProposeQuestionsInput = z.input<typeof proposeQuestionsSchema>;
export type AcceptProposalInput = z.output<typeof acceptProposalSchema>;
export type CreateGoldenSetInput = z.input<typeof createGoldenSetSchema>;
export type UpdateGoldenSetInput = z.input<typeof updateGoldenSetSchema>;
export type RunEvaluationInput = z.input<typeof runEvaluationSchema>;
export type EvaluationSettingsPatch = z.output<typeof evaluationSettingsPatchSchema>;
export type EvaluationGuardInput = z.input<typeof evaluationGuardSchema>;

// ---- responses ----

const timestamp = z.string().describe('ISO 8601 date-time (UTC)');

export const goldenSet = z
  .object({
    id: z.string(),
    version: z.number().int(),
    name: z.string(),
    matchBy: matchBySchema,
    queryCount: z.number().int(),
    queries: z.array(z.object({ id: z.string(), query: z.string(), relevant: z.array(z.object({ target: z.string(), grade: z.number().int() })) })),
    createdAt: timestamp,
  })
  .meta({ id: 'GoldenSet' });

const metrics = z
  .object({
    ndcg10: z.number(),
    recall: z.number().describe('Mean recall@k'),
    mrr: z.number().describe('Mean reciprocal rank within k'),
    k: z.number().int(),
    queries: z.number().int(),
    latencyP50Ms: z.number(),
    latencyP95Ms: z.number(),
  })
  .meta({ id: 'EvaluationMetrics' });

/** The settings a run searched with (EvaluationSettings of the store is this schema's output). */
export const evaluationSettings = z
  .object({
    queryExpansion: retrieval.queryExpansion,
    enableReranking: z.boolean(),
    limit: z.number().int(),
    lexicalWeight: z.number(),
    vectorWeight: z.number(),
    rrfK: z.number().int(),
    chunkSize: z.number().int().optional().describe('Chunking and model the run searched with (absent in runs made before they were recorded)'),
    chunkOverlap: z.number().int().optional(),
    embeddingModel: z.string().optional(),
    shadow: z.boolean().optional().describe('True when the run searched a shadow copy re-indexed with other chunking or another embedding model'),
  })
  .meta({ id: 'EvaluationSettings' });

const queryResult = z.object({
  id: z.string(),
  query: z.string(),
  ndcg10: z.number(),
  recall: z.number(),
  reciprocalRank: z.number(),
  latencyMs: z.number(),
  expected: z.array(z.object({ target: z.string(), grade: z.number().int(), rank: z.number().int().nullable() })),
  returned: z.array(z.string()),
});

const runFields = {
  id: z.string(),
  setId: z.string(),
  setVersion: z.number().int(),
  trigger: z.enum(EVALUATION_TRIGGERS),
  status: z.enum(RUN_STATUSES).describe('`running` while a queued run (one on a shadow copy) builds and searches its copy'),
  error: z.string().nullable().describe('Why a failed run failed'),
  progress: z
    .object({ stage: z.enum(EVALUATION_STAGES), done: z.number().int(), total: z.number().int() })
    .nullable()
    .describe('How far a running run got: documents re-indexed into the shadow copy, then queries searched (null while queued and once ended)'),
  settings: evaluationSettings,
  metrics: metrics.nullable().describe('Null until the run is completed'),
  createdAt: timestamp,
};

export const evaluationRunSummary = z.object(runFields).meta({ id: 'EvaluationRunSummary' });
export const evaluationRun = z.object({ ...runFields, perQuery: z.array(queryResult) }).meta({ id: 'EvaluationRun' });

export const evaluationComparison = z
  .object({
    base: evaluationRunSummary,
    candidate: evaluationRunSummary,
    delta: z.object({ ndcg10: z.number(), recall: z.number(), mrr: z.number(), latencyP50Ms: z.number(), latencyP95Ms: z.number() }),
    queries: z
      .array(z.object({ id: z.string(), query: z.string(), baseNdcg10: z.number(), candidateNdcg10: z.number(), delta: z.number() }))
      .describe('Queries whose nDCG@10 differs, worst change first'),
  })
  .meta({ id: 'EvaluationComparison' });

export const evaluationGuard = z.object({ setId: z.string(), maxNdcgDrop: z.number(), updatedAt: timestamp }).meta({ id: 'EvaluationGuard' });
/** The guard of a collection, or null when it has none. */
export const evaluationGuardState = z.object({ guard: evaluationGuard.nullable() }).meta({ id: 'EvaluationGuardState' });

export const guardRefusal = z
  .object({
    error: z.string(),
    guard: z.object({
      setId: z.string(),
      maxNdcgDrop: z.number(),
      beforeNdcg10: z.number(),
      afterNdcg10: z.number(),
      beforeRunId: z.string(),
      afterRunId: z.string(),
    }),
  })
  .meta({ id: 'EvaluationGuardRefusal' });

export const goldenProposal = z
  .object({
    id: z.string(),
    status: z.enum(PROPOSAL_STATUSES),
    question: z.string(),
    documentId: z.string(),
    sectionId: z.string().describe('The section the question was drafted from (what should answer it)'),
    sectionTitle: z.string(),
    excerpt: z.string().describe("The start of the section's text"),
    setId: z.string().nullable().describe('The set an accepted question went into'),
    setVersion: z.number().int().nullable(),
    createdAt: timestamp,
    decidedAt: timestamp.nullable(),
  })
  .meta({ id: 'GoldenProposal' });
export const acceptedProposal = z.object({ proposal: goldenProposal, set: goldenSet }).meta({ id: 'AcceptedGoldenProposal' });

export type GoldenProposalView = z.output<typeof goldenProposal>;
export type GoldenSetView = z.output<typeof goldenSet>;
export type EvaluationRunView = z.output<typeof evaluationRun>;
export type EvaluationRunSummaryView = z.output<typeof evaluationRunSummary>;
export type EvaluationComparisonView = z.output<typeof evaluationComparison>;
export type GuardFigures = z.output<typeof guardRefusal>['guard'];
