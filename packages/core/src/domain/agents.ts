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
