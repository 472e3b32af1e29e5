import { z } from 'zod';
import { DossierError } from './domain/errors.ts';
import { DOCUMENT_STATUSES, ENVS, type JsonValue, QUERY_EXPANSIONS, RESEARCH_DEPTH_NAMES } from './domain/types.ts';
import { EVENT_TYPES } from './events/catalogue.ts';
import { ORG_ROLES, PROVIDER_SPELLINGS, VISIBILITIES } from './vocabulary.ts';

/**
 * Request schemas: validated once in core (library calls) and reused by the server for HTTP validation and
 * for the OpenAPI document it serves. Unknown keys are rejected so typos fail loudly.
 */

export const uuid = z.string().uuid({ message: 'must be a UUID' });
/** Any JSON value; named so the OpenAPI document defines the recursion once, under components. */
export const jsonValueSchema: z.ZodType<JsonValue> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValueSchema), z.record(z.string(), jsonValueSchema)]))
  .meta({ id: 'JsonValue' });
const json = jsonValueSchema;
/**
 * Caps on metadata (issue 9: a 5,000-deep object overflowed the validator's stack and a 9.7 MB filter stalled the
 * server). Checked before the recursive schema runs, without recursion, so any input fails fast with a 400.
 */
export const METADATA_LIMITS = { maxBytes: 16_384, maxDepth: 16, maxFilterPairs: 32 } as const;

/** Nesting depth of a JSON value (a scalar is 0), walked with an explicit stack; stops once past `cap`. */
export function jsonDepth(value: unknown, cap = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > cap) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** An object of JSON values, checked against the caps first (its first stage reads only top-level keys, so it cannot recurse). */
function boundedMetadata(what: string, maxPairs?: number) {
  return z
    .record(z.string(), z.unknown())
    .superRefine((value, issue) => {
      if (jsonDepth(value, METADATA_LIMITS.maxDepth) > METADATA_LIMITS.maxDepth) {
        issue.addIssue({ code: 'custom', message: `${what} is nested deeper than ${METADATA_LIMITS.maxDepth} levels`, fatal: true });
        return;
      }
      if (maxPairs !== undefined && value !== null && typeof value === 'object' && Object.keys(value).length > maxPairs) {
        issue.addIssue({ code: 'custom', message: `${what} has more than ${maxPairs} pairs`, fatal: true });
        return;
      }
      const size = Buffer.byteLength(JSON.stringify(value) ?? '');
      if (size > METADATA_LIMITS.maxBytes)
        issue.addIssue({ code: 'custom', message: `${what} exceeds ${METADATA_LIMITS.maxBytes} bytes of JSON`, fatal: true });
    })
    .pipe(z.record(z.string(), json));
}

export const metadataSchema = boundedMetadata('metadata').describe(
  `Arbitrary key-value metadata (at most ${METADATA_LIMITS.maxBytes} bytes of JSON, ${METADATA_LIMITS.maxDepth} levels deep)`,
);
const metadataFilterSchema = boundedMetadata('metadata filter', METADATA_LIMITS.maxFilterPairs);
export const tagsSchema = z.array(z.string().min(1).max(200)).max(100);

export const filterFields = {
  tags: tagsSchema.optional().describe('Documents must carry ALL of these tags'),
  anyTags: tagsSchema.optional().describe('Documents must carry at least ONE of these tags'),
  metadata: metadataFilterSchema.optional().describe(`Document metadata must contain all of these pairs (at most ${METADATA_LIMITS.maxFilterPairs})`),
};

export const visibilitySchema = z.enum(VISIBILITIES);

/**
 * A collection's indexing and retrieval settings with their bounds: the one source that collection bodies and
 * evaluation runs pick their fields from (issue 35), so a bound changes in one place.
 */
export const retrievalSettingsSchema = z.object({
  chunkSize: z.number().int().min(64).max(4096),
  chunkOverlap: z.number().int().min(0).max(512),
  embeddingModel: z.string().min(1).max(200),
  queryExpansion: z.enum(QUERY_EXPANSIONS),
  enableReranking: z.boolean(),
  lexicalWeight: z.number().min(0).max(10),
  vectorWeight: z.number().min(0).max(10),
  rrfK: z.number().int().min(1).max(1000),
});
const chunking = retrievalSettingsSchema.pick({ chunkSize: true, chunkOverlap: true }).partial().shape;

export const createCollectionSchema = z.strictObject({
  projectId: z.string().min(1),
  name: z.string().trim().min(1).max(200),
  visibility: visibilitySchema.optional(),
  description: z.string().max(2000).nullable().optional(),
  ...chunking,
  embeddingModel: retrievalSettingsSchema.shape.embeddingModel.optional(),
  queryExpansion: retrievalSettingsSchema.shape.queryExpansion.nullable().optional(),
  duplicateThreshold: z
    .number()
    .min(0.3)
    .max(1)
    .nullable()
    .optional()
    .describe('Share of either document inside the passages two documents share from which they are near-duplicates; null: 0.5'),
});

export const updateCollectionSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  visibility: visibilitySchema.optional(),
  description: z.string().max(2000).nullable().optional(),
  ...chunking,
  enableSummarization: z.boolean().optional(),
  enableCaptioning: z.boolean().optional(),
  enableReranking: z.boolean().optional(),
  enableDeduplication: z.boolean().optional(),
  suppressContradictionsByMetadata: z.boolean().optional(),
  suppressIntraDocumentContradictions: z.boolean().optional(),
  llmModel: z.string().min(1).max(200).nullable().optional(),
  instructions: z.string().max(4000).nullable().optional(),
  queryExpansion: retrievalSettingsSchema.shape.queryExpansion.nullable().optional(),
  /** Apply a query-time change even when the collection's evaluation guard refuses it (issue 38). */
  force: z.boolean().optional(),
  duplicateThreshold: z
    .number()
    .min(0.3)
    .max(1)
    .nullable()
    .optional()
    .describe('Share of either document inside the passages two documents share from which they are near-duplicates; null: 0.5'),
  embeddingModel: z.never({ message: 'embeddingModel is fixed for the lifetime of a collection' }).optional(),
});

export const uploadUrlSchema = z.strictObject({
  filename: z.string().trim().min(1).max(1024),
  contentType: z.string().max(255).optional(),
  fileSizeBytes: z.number().int().min(0).optional(),
  contentHash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/i, { message: 'must look like sha256:<64 hex characters>' })
    .optional(),
  tags: tagsSchema.optional(),
  metadata: metadataSchema.optional(),
  /** Issue 43: the file's path in the folder it mirrors (with contentHash); a document of that path gets replaced. */
  sourcePath: z.string().min(1).max(2048).optional(),
});

/** Query of GET /v1/documents/:id/pages/:page/image (issue 39). */
export const pageImageQuerySchema = z.strictObject({
  width: z.coerce
    .number()
    .int()
    .min(100)
    .max(4000)
    .optional()
    .describe('Width wanted in pixels (default 1200); the image is drawn at the smallest of 400, 800, 1200, 1600 that covers it'),
});

export const confirmSchema = z.strictObject({ tags: tagsSchema.optional(), metadata: metadataSchema.optional() });
export const batchConfirmSchema = z.strictObject({ documentIds: z.array(uuid).min(1).max(500) });
export const batchDeleteSchema = z.strictObject({ ids: z.array(uuid).min(1).max(500) });

export const documentPatchSchema = z.strictObject({
  tags: tagsSchema.optional(),
  metadata: metadataSchema.optional(),
  replaceMetadata: z.boolean().optional(),
});
export const bulkPatchSchema = z.strictObject({
  documents: z
    .array(documentPatchSchema.extend({ id: uuid }))
    .min(1)
    .max(500),
});

export const documentStatusSchema = z.enum(DOCUMENT_STATUSES);
export const listDocumentsSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  status: documentStatusSchema.optional(),
  tags: filterFields.tags.describe('Documents must carry ALL of these tags (repeat the parameter: ?tags=a&tags=b)'),
  anyTags: filterFields.anyTags.describe('Documents must carry at least ONE of these tags (repeat the parameter)'),
});

/** GET …/manifest (issue 43): keyset paging by source path. */
export const manifestQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  after: z.string().max(1024).optional(),
  prefix: z.string().max(1024).optional(),
});

export const filenameSearchSchema = z.strictObject({
  q: z.string().trim().min(1).max(1024),
  limit: z.number().int().min(1).max(100).default(20),
  ...filterFields,
});

/** Restricts retrieval to some documents of the collection (hosted agents scope a run to one document this way). */
const documentIdsField = z
  .array(z.string().uuid({ message: 'must be a UUID' }))
  .min(1)
  .max(100)
  .optional()
  .describe('Only these documents of the collection (1 to 100 ids)');

export const querySchema = z.strictObject({
  q: z.string().trim().min(1).max(10_000),
  limit: z.number().int().min(1).max(50).default(10),
  ...filterFields,
  documentIds: documentIdsField,
});

export const scanSchema = z.strictObject({
  query: z.string().trim().min(1).max(10_000),
  top_k: z.number().int().min(1).max(100).default(20),
  ...filterFields,
  documentIds: documentIdsField,
});

/** Request bodies of key management (issue 9). */
export const createProjectKeySchema = z.strictObject({
  env: z.enum(ENVS).describe('live: production data; test: the isolated sandbox'),
  name: z.string().trim().min(1).max(100).optional().describe('A label to recognise the key by'),
});
export const createOrgKeySchema = z.strictObject({ name: z.string().trim().min(1).max(100).optional() });

/** Management plane bodies (issue 9). */
export const nameSchema = z.strictObject({ name: z.string().trim().min(1).max(200) });
export const memberSchema = z.strictObject({
  email: z.string().trim().min(3).max(320).describe('The email of an existing account'),
  role: z.enum(ORG_ROLES),
});
export const changePasswordSchema = z.strictObject({
  currentPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(12, { message: 'must be at least 12 characters' }).max(1024),
});

export const loginSchema = z.strictObject({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) });

export type CreateCollectionInput = z.input<typeof createCollectionSchema>;
export type UpdateCollectionInput = z.input<typeof updateCollectionSchema>;
export type UploadUrlInput = z.input<typeof uploadUrlSchema>;
export type DocumentPatchInput = z.input<typeof documentPatchSchema>;
export type QueryInput = z.input<typeof querySchema>;
export type ScanInput = z.input<typeof scanSchema>;
export type FilenameSearchInput = z.input<typeof filenameSearchSchema>;
export type ListDocumentsInput = z.input<typeof listDocumentsSchema>;
export type ManifestQueryInput = z.input<typeof manifestQuerySchema>;

/** Parse input with a schema, turning failures into one readable invalid_input error. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 5).map((i) => {
    const path = i.path.join('.');
    return i.code === 'unrecognized_keys'
      ? `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `'${k}'`).join(', ')}${path ? ` in ${path}` : ''}`
      : `${path || 'body'}: ${i.message}`;
  });
  throw new DossierError('invalid_input', issues.join('; '));
}

// Provider keys (spec: Provider keys). Both spellings of the provider are accepted; responses use provider_a/provider_b.
export const createProviderKeySchema = z.strictObject({
  provider: z.enum(PROVIDER_SPELLINGS, {
    message: 'must be provider_a (Anthropic) or provider_b (OpenAI)',
  }),
  key: z.string().trim().min(8, { message: 'must be at least 8 characters' }).max(1000).regex(/^\S+$/, { message: 'must not contain whitespace' }),
  name: z.string().trim().min(1).max(200),
});
export type CreateProviderKeyInput = z.input<typeof createProviderKeySchema>;

// Research (spec: Research). `model` is routed to its provider by the model resolver.
export const researchDepthSchema = z.enum(RESEARCH_DEPTH_NAMES);
export const researchSchema = z.strictObject({
  q: z.string().trim().min(1).max(10_000),
  depth: researchDepthSchema.default('balanced'),
  model: z.string().trim().min(1).max(200).optional(),
  ...filterFields,
});
export type ResearchInput = z.input<typeof researchSchema>;
export * from './claims/schemas.ts';

/** Duplicate group listing (spec: Duplicates, Limits). */
export const duplicateListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** GET /v1/usage/daily: a calendar month (UTC), default the current one. */
export const usageDailyQuerySchema = z.strictObject({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month as YYYY-MM')
    .optional()
    .describe('The calendar month (UTC) as YYYY-MM; default the current month'),
});

/**
 * GET …/duplicates/:groupId/compare: the two members to compare. Both are required, checked after the group is
 * found, so a caller outside the collection gets its 404 whatever the query.
 */
export const duplicateCompareQuerySchema = z.strictObject({
  left: uuid.optional().describe('A member of the group (shown on the left); required'),
  right: uuid.optional().describe('Another member of the group; required'),
});

/** Promote a member of a duplicate group to canonical. */
export const promoteDuplicateSchema = z.strictObject({ canonicalDocumentId: uuid });

export * from './agents/schemas.ts';

const webhookEventsSchema = z
  .array(z.enum(EVENT_TYPES))
  .max(EVENT_TYPES.length)
  .describe(`Subscribed event types (${EVENT_TYPES.join(', ')}); empty or omitted: all`);
const webhookUrlSchema = z.string().trim().min(1).max(2048).describe('HTTPS URL receiving the POSTs');
const receiveTestEventsSchema = z
  .boolean()
  .describe('Also deliver events of the project\'s test sandbox (body `env: "test"`); default false: live events only');

export const createWebhookSchema = z.strictObject({
  url: webhookUrlSchema,
  events: webhookEventsSchema.optional(),
  receiveTestEvents: receiveTestEventsSchema.optional(),
  description: z.string().max(500).nullable().optional(),
});
export type CreateWebhookInput = z.input<typeof createWebhookSchema>;

export const updateWebhookSchema = z.strictObject({
  url: webhookUrlSchema.optional(),
  events: webhookEventsSchema.optional(),
  enabled: z.boolean().optional(),
  receiveTestEvents: receiveTestEventsSchema.optional(),
  description: z.string().max(500).nullable().optional(),
});
export type UpdateWebhookInput = z.input<typeof updateWebhookSchema>;

export const webhookDeliveriesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).optional().describe('At most 100 (default 50)'),
});

export { createSourceSchema, deleteByPathSchema, runSourceSchema, updateSourceSchema } from './sources/schemas.ts';
