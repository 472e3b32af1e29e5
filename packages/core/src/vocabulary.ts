/**
 * The one source of every enum the API speaks (issue 35): core's schemas and types, the server's config, the CLI's
 * choices, the MCP tools and the dashboard's select options all import these lists (as `@dossier/core/vocabulary`)
 * instead of spelling the literals again. This file imports nothing, so the dashboard's bundle can take it whole.
 */

/** A project's two sandboxes: production data, and the isolated test sandbox. */
export const ENVS = ['live', 'test'] as const;
/** Who may read a collection: its project only, or anyone (reads only). */
export const VISIBILITIES = ['private', 'public'] as const;
/** A member's role in an org. */
export const ORG_ROLES = ['admin', 'member'] as const;

/** A document's statuses, in pipeline order (`error` last). */
export const DOCUMENT_STATUSES = ['pending', 'uploading', 'processing', 'sectioned', 'embedded', 'ready', 'error'] as const;
/** The statuses after which a document no longer changes (the wait endpoint returns on these). */
export const TERMINAL_STATUSES: readonly (typeof DOCUMENT_STATUSES)[number][] = ['ready', 'error'];
/** How a section's summary was made. */
export const SUMMARY_TYPES = ['extractive', 'generated'] as const;

/** Research depths, shallowest first (spec: research `depth`). */
export const RESEARCH_DEPTH_NAMES = ['quick', 'balanced', 'deep', 'exhaustive'] as const;
/** Lexical query expansion strategies (collection setting `queryExpansion`). */
export const QUERY_EXPANSIONS = ['none', 'rm3'] as const;

export const CONTRADICTION_SEVERITIES = ['low', 'medium', 'high'] as const;
export const CONTRADICTION_STATUSES = ['active', 'dismissed', 'applied'] as const;

/** Statuses of a hosted-agent run; every one but `running` is final. */
export const AGENT_RUN_STATUSES = ['running', 'succeeded', 'failed', 'cancelled', 'timeout'] as const;

/** LLM providers as the spec names them (provider keys). */
export const SPEC_PROVIDERS = ['provider_a', 'provider_b'] as const;
/** Every spelling a request may use: the spec's, or the provider's own name (DESIGN.md; responses use the spec's). */
export const PROVIDER_SPELLINGS = [...SPEC_PROVIDERS, 'anthropic', 'openai'] as const;

/** Issue 43: what a source syncs from, what started a run of it, and how the run ended. */
export const SOURCE_KINDS = ['folder', 's3'] as const;
export const SOURCE_RUN_TRIGGERS = ['manual', 'schedule'] as const;
/** A run that is `running`, or how it ended (source syncs and evaluation runs alike). */
export const RUN_STATUSES = ['running', 'completed', 'failed'] as const;

/** A webhook delivery: waiting (or retrying), delivered, or given up. */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'success', 'failed'] as const;

/** Issue 38: a proposed golden question waits for review, then is accepted or rejected. */
export const PROPOSAL_STATUSES = ['proposed', 'accepted', 'rejected'] as const;

/** The scopes an OAuth client may be granted: read-only, or everything a project key may do. */
export const OAUTH_SCOPES = ['svc:read', 'svc:full'] as const;

/** Issue 38: what a golden question's targets name, what started an evaluation run, and the stages of a queued run. */
export const GOLDEN_MATCHES = ['document', 'filename', 'section'] as const;
export const EVALUATION_TRIGGERS = ['manual', 'guard-before', 'guard-after'] as const;
export const EVALUATION_STAGES = ['indexing', 'searching'] as const;

/** Types of the service events (the event catalogue, events/catalogue.ts, documents each one's data). */
export const EVENT_TYPES = [
  'document.ready',
  'document.error',
  'document.updated',
  'research.completed',
  'duplicates.completed',
  'contradictions.completed',
  'agent.run.completed',
  'source.run.completed',
  'evaluation.completed',
  'webhook.test',
] as const;
