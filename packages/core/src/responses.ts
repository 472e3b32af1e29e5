import { z } from 'zod';
import { AGENT_RUN_STATUSES, AGENT_STEP_KINDS, AGENT_TOOLS } from './domain/agents.ts';
import { CONTRADICTION_RUN_STATUSES, CONTRADICTION_SEVERITIES, CONTRADICTION_STATUSES } from './domain/claims.ts';
import { DUPLICATE_RELATIONSHIPS, DUPLICATE_RUN_STATUSES } from './domain/duplicates.ts';
import {
  ENVS,
  ORG_ROLES,
  QUERY_EXPANSIONS,
  RUN_STATUSES,
  SOURCE_KINDS,
  SOURCE_RUN_TRIGGERS,
  SPEC_PROVIDERS,
  SUMMARY_TYPES,
  WEBHOOK_DELIVERY_STATUSES,
} from './vocabulary.ts';
import { EVENT_TYPES } from './events/catalogue.ts';
import { documentStatusSchema, jsonValueSchema, researchDepthSchema, visibilitySchema } from './schemas.ts';

/**
 * Response schemas: what the API answers, as zod schemas. The server types each route's reply with them and
 * publishes them in its OpenAPI document (those with an `id` once, under components/schemas). They are the one
 * source of each response shape: the view types the services return are `z.output<typeof …>` of these (issue 35),
 * so a service that builds a view is checked against the schema the route publishes.
 */

const timestamp = z.string().describe('ISO 8601 date-time (UTC)');
const nullableTimestamp = timestamp.nullable();
const metadata = z.record(z.string(), jsonValueSchema);

export const collection = z
  .object({
    id: z.string(),
    name: z.string(),
    visibility: visibilitySchema,
    description: z.string().nullable(),
    chunkSize: z.number().int(),
    chunkOverlap: z.number().int(),
    embeddingModel: z.string(),
    enableSummarization: z.boolean(),
    enableCaptioning: z.boolean(),
    enableReranking: z.boolean(),
    enableDeduplication: z.boolean(),
    suppressContradictionsByMetadata: z.boolean(),
    suppressIntraDocumentContradictions: z.boolean(),
    llmModel: z.string().nullable(),
    instructions: z.string().nullable(),
    queryExpansion: z.enum(QUERY_EXPANSIONS).nullable(),
    duplicateThreshold: z.number().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'Collection' });

export const publicCollection = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    visibility: z.literal('public'),
    docCount: z.number().int(),
    totalSections: z.number().int(),
    createdAt: timestamp,
  })
  .describe(
    "A public collection as callers who do not own it see it (anonymous, or another project's key): no research instructions, model or pipeline settings",
  )
  .meta({ id: 'PublicCollection' });

export const collectionStats = z
  .object({
    docCount: z.number().int(),
    totalFileSizeBytes: z.number(),
    storageBytes: z.number(),
    dbBytes: z.number(),
    totalSections: z.number().int(),
    totalChunks: z.number().int(),
    statusCounts: z.record(z.string(), z.number().int()),
    summarizedCount: z.number().int(),
    captionedCount: z.number().int(),
    claimsExtractedCount: z.number().int(),
    totalClaimsCount: z.number().int(),
  })
  .meta({ id: 'CollectionStats' });

export const document = z
  .object({
    id: z.string(),
    collectionId: z.string(),
    filename: z.string(),
    status: documentStatusSchema,
    fileSizeBytes: z.number().nullable(),
    sectionCount: z.number().int().nullable(),
    chunkCount: z.number().int().nullable(),
    contentHash: z.string().nullable(),
    markdownStorageKey: z.string().nullable(),
    errorMessage: z.string().nullable(),
    tags: z.array(z.string()),
    metadata,
    canonical: z.boolean().describe('False for a non-canonical member of a duplicate group (left out of retrieval)'),
    createdAt: timestamp,
    sourcePath: z.string().nullable().describe('Its path within the folder or bucket it mirrors (sync), or null'),
    version: z.number().int().describe('1, plus one each time its content was replaced'),
  })
  .meta({ id: 'Document' });

/** One entry of GET …/manifest (issue 43): a document that came from a source path. */
export const manifestEntry = z.object({
  path: z.string(),
  hash: z.string().nullable().describe('sha256:<hex> of the content it holds (null until hashed)'),
  stamp: z.string().nullable().describe('What the source said of the file (S3 ETag, size and time), or null'),
  documentId: z.string(),
  version: z.number().int(),
  status: documentStatusSchema,
  updatedAt: timestamp,
});
/** Issue 43: a folder on the server synced into a collection. */
export const source = z
  .object({
    id: z.string(),
    collectionId: z.string(),
    kind: z.enum(SOURCE_KINDS),
    location: z.string().describe('The folder on the server'),
    settings: z.record(z.string(), z.string()),
    intervalMinutes: z.number().int().nullable().describe('Minutes between scheduled runs; null: only on demand'),
    maxDeleteShare: z.number().describe('Largest share (0–1) of the synced documents one run may delete without force'),
    paused: z.boolean(),
    nextRunAt: timestamp.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Source' });

/** Issue 43: one sync of a source and what it did (deletions are soft until `details.purgeAfter`). */
export const sourceRun = z
  .object({
    id: z.string(),
    sourceId: z.string(),
    collectionId: z.string(),
    status: z.enum(RUN_STATUSES),
    trigger: z.enum(SOURCE_RUN_TRIGGERS),
    added: z.number().int(),
    updated: z.number().int(),
    deleted: z.number().int(),
    unchanged: z.number().int(),
    failed: z.number().int(),
    details: z.object({
      deletedPaths: z.array(z.string()),
      failures: z.array(z.object({ path: z.string(), error: z.string() })),
      purgeAfter: timestamp.nullable().describe('When the documents deleted by this run are removed for good'),
    }),
    error: z.string().nullable(),
    startedAt: timestamp,
    finishedAt: timestamp.nullable(),
  })
  .meta({ id: 'SourceRun' });

export const softDeleted = z
  .object({
    deleted: z.array(z.object({ path: z.string(), documentId: z.string() })),
    purgeAfter: timestamp.describe('When these documents are removed for good'),
  })
  .meta({ id: 'SoftDeleted' });

export const manifest = z
  .object({ entries: z.array(manifestEntry), nextCursor: z.string().nullable().describe('Pass as `after` for the next page; null on the last') })
  .meta({ id: 'SourceManifest' });

export const documentList = z.object({ documents: z.array(document), total: z.number().int() });
export const documentBatch = z.object({ documents: z.array(document) });
export const tagCounts = z.object({ tags: z.array(z.object({ name: z.string(), count: z.number().int() })), hasMetadata: z.boolean() });
export const filenameHits = z.array(z.object({ score: z.number(), document }));

/** The answer of POST …/upload-url: a URL to PUT the file to, or (content-hash hit) the existing document and no URL. */
export const uploadUrl = z
  .object({ documentId: z.string(), uploadUrl: z.string().nullable(), document: document.optional() })
  .meta({ id: 'UploadUrlResponse' });
export const uploadReceived = z.object({ ok: z.literal(true) });

const pageSpan = { pageStart: z.number().int().optional(), pageEnd: z.number().int().optional() };
export const section = z
  .object({
    id: z.string(),
    documentId: z.string(),
    title: z.string(),
    level: z.number().int(),
    position: z.number().int(),
    summary: z.string().nullable(),
    summaryType: z.enum(SUMMARY_TYPES).nullable(),
    chunkCount: z.number().int(),
    markdownOffsetStart: z.number().int(),
    markdownOffsetEnd: z.number().int(),
    ...pageSpan,
  })
  .meta({ id: 'Section' });

/** Where a passage is in its document (issue 39): fields absent when unknown (an older index, a format without pages). */
const passageLocationFields = {
  span: z
    .object({ start: z.number().int(), end: z.number().int() })
    .optional()
    .describe("The passage's characters in the document's Markdown: [start, end) in UTF-16 code units (JavaScript string offsets)"),
  pages: z.array(z.number().int()).optional().describe('Pages of the original (1-based) the passage is on, for PDFs and scans'),
  regions: z
    .array(
      z.object({
        page: z.number().int(),
        box: z
          .tuple([z.number(), z.number(), z.number(), z.number()])
          .describe('[x0, y0, x1, y1] as fractions of the page width and height, origin at the top left'),
      }),
    )
    .optional()
    .describe("Boxes on the original's pages holding the passage's text (see GET /v1/documents/{id}/pages/{page}/image)"),
  cells: z
    .array(z.object({ sheet: z.string().describe("The sheet's name"), range: z.string().describe('First to last cell in A1 notation, e.g. A1:D20') }))
    .optional()
    .describe("For a spreadsheet (XLSX): the sheet and the cells the passage's rows come from"),
};

export const passageLocation = z.object(passageLocationFields);

/** A section with its Markdown, and where it is in its original (pages and bounded boxes, cells, as a scan result's). */
const { span: _span, ...sectionLocation } = passageLocationFields;
export const sectionWithContent = section
  .extend({ content: z.string().describe('The Markdown of the section'), ...sectionLocation })
  .meta({ id: 'SectionWithContent' });

export const chunk = z
  .object({ id: z.string(), content: z.string(), position: z.number().int(), tokenCount: z.number().int(), ...passageLocationFields })
  .meta({ id: 'Chunk' });

export const image = z
  .object({
    id: z.string(),
    sectionId: z.string().nullable(),
    placeholder: z.string(),
    mimeType: z.string(),
    caption: z.string().nullable(),
    position: z.number().int(),
  })
  .meta({ id: 'DocumentImage' });
export const tableCaptions = z.array(z.object({ content: z.string(), caption: z.string() }));

/** Which retrieval lists found a hit (issue 34). */
export const foundBy = z
  .object({
    lexical: z.number().int().min(1).optional().describe('Rank in the lexical (BM25) list, 1 = first'),
    vector: z.number().int().min(1).optional().describe('Rank in the vector (embedding) list, 1 = first'),
  })
  .describe(
    'Which retrieval lists found the hit and at what rank, before fusion and reranking; a list that did not find it is absent (a collection without embeddings has only the lexical list)',
  )
  .meta({ id: 'FoundBy' });

export const queryHit = z
  .object({
    score: z.number(),
    foundBy: foundBy.optional(),
    chunk,
    section: z.object({ id: z.string(), title: z.string(), level: z.number().int() }),
    document: z.object({ id: z.string(), filename: z.string() }),
    ...passageLocationFields,
  })
  .meta({ id: 'QueryHit' });
export const scanResults = z.object({
  results: z.array(
    z.object({
      score: z.number(),
      section: z.object({ id: z.string(), title: z.string(), level: z.number().int(), summary: z.string().nullable() }),
      document: z.object({ id: z.string(), filename: z.string() }),
      ...passageLocationFields,
    }),
  ),
});

export const runUsage = z
  .object({
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    cacheReadTokens: z.number().int(),
    cacheWriteTokens: z.number().int(),
    modelCalls: z.number().int(),
    retries: z.number().int(),
  })
  .meta({ id: 'RunUsage' });

export const researchSource = z
  .object({
    chunkId: z.string(),
    content: z.string(),
    documentId: z.string(),
    filename: z.string(),
    sectionId: z.string(),
    sectionTitle: z.string(),
    sectionLevel: z.number().int(),
    marker: z.string().optional().describe('The inline marker the answer cites this source by (S3 for [S3])'),
    contradictions: z.array(z.object({ contradictionId: z.string(), severity: z.enum(CONTRADICTION_SEVERITIES) })).optional(),
    ...passageLocationFields,
  })
  .meta({ id: 'ResearchSource' });

export const researchAnswer = z
  .object({ answer: z.string(), sessionId: z.string(), sources: z.array(researchSource), unresolvedCitations: z.array(z.string()).optional() })
  .meta({ id: 'ResearchAnswer' });

/** The two shares of the faithfulness heuristic (null when nothing was there to measure) and the counts behind them. */
export const faithfulness = z.object({
  sentences: z.number().int(),
  citedSentences: z.number().int(),
  citedSentenceShare: z.number().nullable(),
  citations: z.number().int(),
  supportedCitations: z.number().int(),
  supportedCitationShare: z.number().nullable(),
});

export const researchSession = z
  .object({
    id: z.string(),
    query: z.string(),
    /** Markdown answer with inline citations. */
    response: z.string(),
    depth: researchDepthSchema,
    /** Model id as the user wrote it or as the tier default resolved (e.g. `ollama:llama3.1`). */
    model: z.string(),
    /** A frozen snapshot: later document changes never alter it. */
    sources: z.array(researchSource),
    /** Markers the answer cited that resolved to no retrieved source (an invented `[S99]`); removed from `response`. */
    unresolvedCitations: z.array(z.string()),
    /** What the run consumed (null for sessions saved before usage was recorded). */
    usage: runUsage.nullable(),
    faithfulness: faithfulness.describe(
      "Heuristic (issue 38, docs/evaluation.md): share of answer sentences with a citation, and of citations whose passage shares the sentence's key terms",
    ),
    createdAt: timestamp,
  })
  .meta({ id: 'ResearchSession' });

export const enqueued = z.object({ enqueued: z.number().int() });

export const claim = z
  .object({
    id: z.string(),
    documentId: z.string(),
    sectionId: z.string(),
    sectionTitle: z.string(),
    text: z.string(),
    sourceText: z.string().nullable(),
    importance: z.number().int().min(1).max(5),
    position: z.number().int(),
  })
  .meta({ id: 'Claim' });
export const documentClaims = z.object({ documentId: z.string(), claims: z.array(claim) });

/** The claim map's `done` event carries `{total, claims}` of these. */
export const claimMapItem = z
  .object({
    id: z.string(),
    text: z.string(),
    sourceText: z.string().nullable(),
    documentId: z.string(),
    documentName: z.string(),
    sectionId: z.string(),
    sectionTitle: z.string(),
    importance: z.number().int(),
    x: z.number(),
    y: z.number(),
  })
  .meta({ id: 'ClaimMapItem' });

/** A claim taking part in a contradiction, with its document (spec: ContradictionClaimRef). */
export const contradictionClaimRef = z.object({
  claimId: z.string(),
  text: z.string(),
  sourceText: z.string().nullable(),
  documentId: z.string(),
  documentName: z.string(),
  sectionId: z.string(),
  sectionTitle: z.string(),
});

export const contradiction = z
  .object({
    id: z.string(),
    severity: z.enum(CONTRADICTION_SEVERITIES),
    status: z.enum(CONTRADICTION_STATUSES),
    explanation: z.string(),
    clusterTopicSummary: z.string().nullable(),
    suggestedInstruction: z.string().nullable(),
    claims: z.array(contradictionClaimRef),
    createdAt: timestamp,
  })
  .meta({ id: 'Contradiction' });
export const contradictionList = z.object({ total: z.number().int(), items: z.array(contradiction) });
export const contradictionFiles = z.object({
  files: z.array(z.object({ documentId: z.string(), filename: z.string(), contradictionCount: z.number().int() })),
});
export const contradictionRun = z
  .object({
    id: z.string(),
    status: z.enum(CONTRADICTION_RUN_STATUSES),
    claimsProcessed: z.number().int().nullable(),
    clustersAnalyzed: z.number().int().nullable(),
    contradictionsFound: z.number().int().nullable(),
    model: z.string().nullable(),
    startedAt: nullableTimestamp,
    completedAt: nullableTimestamp,
    error: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'ContradictionRun' });
export const contradictionRunStarted = z.object({ runId: z.string(), status: z.enum(['enqueued', 'running']), enqueuedAt: timestamp });

export const passageSpan = z.object({
  start: z.number().int().describe("Where the passage starts in this document's Markdown (UTF-16 offset)"),
  end: z.number().int().describe('Where it ends (exclusive)'),
  excerpt: z.string().describe('Its first words, whitespace collapsed (at most about 160 characters)'),
});
const sharedPassage = z
  .object({ member: passageSpan, canonical: passageSpan })
  .describe("A passage this member shares with the canonical: its span in each document's Markdown")
  .meta({ id: 'DuplicateSharedPassage' });

export const duplicateGroup = z
  .object({
    id: z.string(),
    canonicalDocumentId: z.string(),
    detectedAt: timestamp,
    members: z.array(
      z.object({
        documentId: z.string(),
        filename: z.string(),
        relationship: z.enum(DUPLICATE_RELATIONSHIPS),
        coverageToCanonical: z.number().nullable(),
        coverageFromCanonical: z.number().nullable(),
        sharedPassages: z
          .array(sharedPassage)
          .optional()
          .describe(
            'Why this member is in the group: the passages it shares with the canonical, in its own order (absent for the canonical and for groups detected before passages were kept)',
          ),
      }),
    ),
  })
  .meta({ id: 'DuplicateGroup' });
export const duplicateComparison = z
  .object({
    left: z.object({ documentId: z.string(), filename: z.string() }),
    right: z.object({ documentId: z.string(), filename: z.string() }),
    leftCoverage: z.number().describe("Share of the left document's content words in passages shared with the right one (0 to 1)"),
    rightCoverage: z.number().describe("Share of the right document's content words in passages shared with the left one"),
    passages: z
      .array(z.object({ left: passageSpan, right: passageSpan }))
      .describe("The shared passages (the longest, at most 20) in the left document's order"),
  })
  .meta({ id: 'DuplicateComparison' });
export const duplicateGroupList = z.object({ total: z.number().int(), items: z.array(duplicateGroup) });
export const duplicateRun = z
  .object({
    id: z.string(),
    status: z.enum(DUPLICATE_RUN_STATUSES),
    jobsEnqueued: z.number().int().nullable(),
    jobsProcessed: z.number().int().nullable(),
    duplicatesDetected: z.number().int().nullable(),
    duplicateGroupsCreated: z.number().int().nullable(),
    startedAt: nullableTimestamp,
    completedAt: nullableTimestamp,
    error: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'DuplicateRun' });
export const duplicateRunStarted = z.object({ runId: z.string(), status: z.literal('pending'), jobsEnqueued: z.number().int(), enqueuedAt: timestamp });
export const duplicatePromoted = z.object({ success: z.literal(true), changed: z.boolean() });
export const duplicateDisbanded = z.object({ success: z.literal(true), groupId: z.string(), members: z.number().int() });

export const login = z.object({ token: z.string(), user: z.object({ id: z.string(), email: z.string() }) });
export const org = z.object({ id: z.string(), name: z.string(), createdAt: timestamp }).meta({ id: 'Org' });
export const project = z.object({ id: z.string(), orgId: z.string(), name: z.string(), createdAt: timestamp }).meta({ id: 'Project' });
export const createdProject = z.object({ project, liveKey: z.string(), testKey: z.string() });
export const orgMember = z.object({ accountId: z.string(), email: z.string(), role: z.enum(ORG_ROLES) }).meta({ id: 'OrgMember' });

export const apiKey = z
  .object({
    id: z.string(),
    env: z.enum([...ENVS, 'org']),
    name: z.string().nullable(),
    prefix: z.string(),
    lastFour: z.string(),
    createdAt: timestamp,
    lastUsedAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
  })
  .meta({ id: 'ApiKey' });
export const createdApiKey = apiKey.extend({ key: z.string().describe('The key itself: shown in this response only') }).meta({ id: 'CreatedApiKey' });

export const providerKey = z
  .object({ id: z.string(), provider: z.enum(SPEC_PROVIDERS), name: z.string(), keyPreview: z.string(), createdAt: timestamp })
  .meta({ id: 'ProviderKey' });

export const usageMeters = z
  .object({
    meters: z.object({
      queries: z.object({ used: z.number(), limit: z.number().nullable() }),
      credits: z.object({ used: z.number(), limit: z.number().nullable() }),
      storage: z.object({ usedMb: z.number(), limitMb: z.number().nullable() }),
    }),
  })
  .meta({ id: 'UsageMeters' });

export const dailyMeter = z.object({
  limit: z.number().nullable().describe("The plan's monthly limit; null is unlimited"),
  total: z.number().describe('Used in the month so far'),
  days: z.array(
    z.object({
      date: z.string().describe('The UTC day, YYYY-MM-DD'),
      used: z.number().describe('Used that day'),
      cumulative: z.number().describe('Used in the month up to and including that day'),
    }),
  ),
});

export const usageDaily = z
  .object({
    month: z.string().describe('The month, YYYY-MM (UTC)'),
    meters: z.object({ queries: dailyMeter, credits: dailyMeter }),
    storage: z.object({ usedMb: z.number(), limitMb: z.number().nullable() }).describe('Held now (storage has no day-by-day history)'),
  })
  .meta({ id: 'UsageDaily' });

export const webhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    receiveTestEvents: z.boolean().describe("Whether events of the project's test sandbox are delivered too (live events always are)"),
    description: z.string().optional(),
    secret: z.string().optional().describe('The signing secret: only in the creation response'),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });
/** The JSON body posted to a webhook endpoint (spec: Webhooks, body shape). */
export const webhookBody = z.object({
  /** The delivery id, also sent as X-Service-Event-Id; stable across retries. */
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  env: z.enum(ENVS).describe('The sandbox the event came from'),
  /** Unix time in seconds when the event was recorded. */
  created: z.number().int(),
  data: z.record(z.string(), z.unknown()),
});
export const webhookDelivery = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventType: z.string(),
    payload: webhookBody,
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number().int(),
    lastAttemptAt: timestamp.optional(),
    responseStatus: z.number().int().optional(),
    responseBody: z.string().optional(),
    nextAttemptAt: timestamp.optional(),
    createdAt: timestamp,
    attemptLog: z.array(
      z.object({
        attempt: z.number().int(),
        at: timestamp,
        responseStatus: z.number().int().nullable(),
        responseBody: z.string().nullable(),
        durationMs: z.number(),
      }),
    ),
  })
  .meta({ id: 'WebhookDelivery' });

const toolset = z.object(Object.fromEntries(AGENT_TOOLS.map((t) => [t, z.boolean()])) as Record<(typeof AGENT_TOOLS)[number], z.ZodBoolean>);
export const agent = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    systemPrompt: z.string(),
    model: z.string(),
    timeoutMs: z.number().int(),
    toolset,
    allowedCollectionIds: z.array(z.string()).nullable().describe('Null allows every collection of the project'),
    outputSchema: z.record(z.string(), z.unknown()).nullable(),
    createdBy: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Agent' });
export const agentList = z.object({ agents: z.array(agent), hasMore: z.boolean() });

export const agentRunSource = researchSource.extend({ marker: z.string(), collectionId: z.string() }).meta({ id: 'AgentRunSource' });
export const contradictionFlag = z.object({ sectionId: z.string(), contradictionId: z.string(), severity: z.string() });
const runFields = {
  id: z.string(),
  agentId: z.string(),
  query: z.string(),
  documentId: z.string().nullable(),
  status: z.enum(AGENT_RUN_STATUSES),
  response: z.string(),
  sources: z.array(agentRunSource),
  contradictionFlags: z.array(contradictionFlag),
  warnings: z.array(z.string()),
  structuredOutput: z.unknown().optional(),
  iterationsUsed: z.number().int(),
  error: z.string().nullable(),
  usage: runUsage.nullable(),
  createdBy: z.string().nullable(),
  createdAt: timestamp,
  completedAt: nullableTimestamp,
};
export const agentRun = z.object({ ...runFields, agentSnapshot: agent }).meta({ id: 'AgentRun' });
export const agentRunList = z.object({ runs: z.array(z.object(runFields).meta({ id: 'AgentRunSummary' })), hasMore: z.boolean() });
export const agentRunStep = z
  .object({
    stepIndex: z.number().int(),
    kind: z.enum(AGENT_STEP_KINDS),
    tool: z.string().nullable(),
    collectionId: z.string().nullable(),
    content: z.record(z.string(), z.unknown()),
    createdAt: timestamp,
  })
  .meta({ id: 'AgentRunStep' });
export const agentSyncResult = z
  .object({
    runId: z.string(),
    status: z.enum(AGENT_RUN_STATUSES).exclude(['running']),
    response: z.string(),
    iterationsUsed: z.number().int(),
    sources: z.array(agentRunSource),
    contradictionFlags: z.array(contradictionFlag),
    structuredOutput: z.unknown().optional(),
    warnings: z.array(z.string()),
  })
  .meta({ id: 'AgentSyncResult' });

export const health = z.object({ status: z.literal('ok'), defaultEmbeddingModel: z.string() });
export const openApiDocument = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document');
