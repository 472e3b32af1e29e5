import { z } from 'zod';
import { AGENT_RUN_STATUSES, AGENT_SLUG_PATTERN, AGENT_TIMEOUT_DEFAULT_MS, AGENT_TIMEOUT_MAX_MS, AGENT_TOOLS } from '../domain/agents.ts';

/** Request schemas of hosted agents (spec: Agent, Hosted agents (management plane), Limits). */

const slug = z.string().regex(AGENT_SLUG_PATTERN, { message: 'must be lowercase letters, digits and inner hyphens, 1 to 100 characters' });
const toolset = z
  .strictObject(
    Object.fromEntries(AGENT_TOOLS.map((tool) => [tool, z.boolean().optional()])) as Record<(typeof AGENT_TOOLS)[number], z.ZodOptional<z.ZodBoolean>>,
  )
  .describe(`Tool switches; omitted keys stay enabled. Keys: ${AGENT_TOOLS.join(', ')}`);
const allowedCollectionIds = z
  .array(z.string().uuid({ message: 'must be a UUID' }))
  .min(1, { message: 'must not be empty (use null to allow every collection of the project)' })
  .max(500)
  .nullable();
const outputSchema = z.record(z.string(), z.unknown()).describe('JSON Schema the final response is parsed against');
const timeoutMs = z.number().int().min(1000).max(AGENT_TIMEOUT_MAX_MS);

export const createAgentSchema = z.strictObject({
  slug,
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable().optional(),
  systemPrompt: z.string().trim().min(1).max(50_000),
  model: z.string().trim().min(1).max(200),
  timeoutMs: timeoutMs.default(AGENT_TIMEOUT_DEFAULT_MS).describe(`Default ${AGENT_TIMEOUT_DEFAULT_MS}, max ${AGENT_TIMEOUT_MAX_MS}`),
  toolset: toolset.optional(),
  allowedCollectionIds: allowedCollectionIds.describe('Null (the default) allows every collection of the project; an empty array is rejected'),
  outputSchema: outputSchema.nullable().optional(),
});

/** JSON Merge Patch (RFC 7396): omitted keys stay, null clears a nullable field. */
export const updateAgentSchema = z.strictObject({
  slug: slug.optional(),
  confirmSlugChange: z.boolean().optional().describe('Must be true when slug changes'),
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(2000).nullable().optional(),
  systemPrompt: z.string().trim().min(1).max(50_000).optional(),
  model: z.string().trim().min(1).max(200).optional(),
  timeoutMs: timeoutMs.nullable().optional().describe('null restores the default'),
  toolset: toolset.nullable().optional().describe('Merged key by key; null restores every tool'),
  allowedCollectionIds: allowedCollectionIds.optional().describe('null widens to every collection'),
  outputSchema: outputSchema.nullable().optional(),
});

export const listAgentsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Invocation (spec: Hosted agents, invoke, invoke/sync and preview). */
const query = z.string().trim().min(1).max(10_000);
const documentId = z.string().uuid({ message: 'must be a UUID' }).optional();

export const invokeAgentSchema = z.strictObject({ query, documentId });

/** A draft agent: the saved agent's fields (when the slug exists) overridden by these; a new slug needs systemPrompt and model. */
const draftSchema = createAgentSchema
  .pick({ systemPrompt: true, model: true, toolset: true, allowedCollectionIds: true, outputSchema: true })
  .extend({ timeoutMs: createAgentSchema.shape.timeoutMs.unwrap().optional() })
  .partial()
  .strict();
export const previewAgentSchema = z.strictObject({ query, documentId, draft: draftSchema });

export type InvokeAgentInput = z.input<typeof invokeAgentSchema>;
export type PreviewAgentInput = z.input<typeof previewAgentSchema>;

/** Runs and steps listings. */
export const listRunsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
  status: z.enum(AGENT_RUN_STATUSES).optional(),
});
export const listStepsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

export type CreateAgentInput = z.input<typeof createAgentSchema>;
export type UpdateAgentInput = z.input<typeof updateAgentSchema>;
export type ListAgentsQuery = z.input<typeof listAgentsQuerySchema>;
