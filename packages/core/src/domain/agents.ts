import type { RunUsage } from './types.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';
import type { AGENT_RUN_STATUSES } from '../vocabulary.ts';

/** Hosted agents (spec: Agent). One source of truth for the tool names and the limits. */

/** The tools an agent may use; each key of `toolset` is one of these (all default true). */
export const AGENT_TOOLS = ['search_collection', 'scan_sections', 'get_section_chunks', 'list_documents', 'get_document'] as const;
export type AgentToolName = (typeof AGENT_TOOLS)[number];
export type AgentToolset = Record<AgentToolName, boolean>;

/** Spec: Agent slug pattern (up to 100 characters). */
export const AGENT_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;
/** Spec: Limits, agent timeoutMs. */
export const AGENT_TIMEOUT_DEFAULT_MS = 300_000;
export const AGENT_TIMEOUT_MAX_MS = 600_000;

/** A JSON Schema object, stored as given. */
export type JsonSchemaObject = Record<string, unknown>;

export interface AgentRecord {
  id: string;
  projectId: string;
  slug: string;
  name: string;
  description: string | null;
  systemPrompt: string;
  model: string;
  timeoutMs: number;
  toolset: AgentToolset;
  /** Null allows every collection of the project; never empty. */
  allowedCollectionIds: string[] | null;
  outputSchema: JsonSchemaObject | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** Fields an update may change (the store sets nothing itself: the service passes updatedAt). */
export type AgentPatch = Partial<Omit<AgentRecord, 'id' | 'projectId' | 'createdBy' | 'createdAt'>>;

/**
 * States of an agent run (spec: Agent run status). `running` is the state of a run in flight (not in the spec's
 * table, which lists how runs end); every run that ends is `succeeded`, `failed`, `cancelled` or `timeout`.
 */
export { AGENT_RUN_STATUSES } from '../vocabulary.ts';
export type AgentRunStatus = (typeof AGENT_RUN_STATUSES)[number];
export type AgentRunEndStatus = Exclude<AgentRunStatus, 'running'>;

/** A passage an agent run retrieved and its answer may cite (spec: AgentRunSource): a research source with its marker and collection. */
export type AgentRunSource = z.output<typeof responses.agentRunSource>;

/** An active contradiction a cited section takes part in (spec: ContradictionClaimRef, as `done.contradictionFlags`). */
export type AgentContradictionFlag = z.output<typeof responses.contradictionFlag>;

/** What the agent looked like when the run started (the API's Agent view). */
export type AgentSnapshot = z.output<typeof responses.agent>;

export interface AgentRunRecord {
  id: string;
  agentId: string;
  projectId: string;
  query: string;
  /** The document every tool call was scoped to, or null. */
  documentId: string | null;
  status: AgentRunStatus;
  response: string;
  sources: AgentRunSource[];
  contradictionFlags: AgentContradictionFlag[];
  warnings: string[];
  /** Present only when the agent has an outputSchema and the response parsed and validated. */
  structuredOutput?: unknown;
  iterationsUsed: number;
  /** The failure's message (failed runs), else null. */
  error: string | null;
  usage: RunUsage | null;
  agentSnapshot: AgentSnapshot;
  createdBy: string | null;
  createdAt: string;
  completedAt: string | null;
}

/** Kinds of run steps: one row per tool call, tool result and model message (spec: AgentRunStep). */
export const AGENT_STEP_KINDS = ['tool_call', 'tool_result', 'message'] as const;
export type AgentStepKind = (typeof AGENT_STEP_KINDS)[number];

export interface AgentRunStepRecord {
  runId: string;
  stepIndex: number;
  kind: AgentStepKind;
  /** The tool of a tool_call or tool_result, else null. */
  tool: string | null;
  /** The collection a tool call read, when it named one. */
  collectionId: string | null;
  /** tool_call: the arguments; tool_result: `{summary}`; message: `{role, content}`. */
  content: Record<string, unknown>;
  createdAt: string;
}
