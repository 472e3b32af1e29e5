import type { AgentPatch, AgentRecord } from '../domain/agents.ts';

/**
 * Hosted agents of a project (part of the MetadataStore, kept in its own file so each port file stays small).
 * Scoping by project is the caller's policy; slugs are unique per project.
 */
export interface AgentStore {
  /** Insert an agent; throws DossierError `conflict` when the project already has the slug. */
  insertAgent(agent: AgentRecord): Promise<void>;
  /** An agent by id, or null. */
  getAgent(id: string): Promise<AgentRecord | null>;
  /** An agent of the project by slug, or null. */
  findAgentBySlug(projectId: string, slug: string): Promise<AgentRecord | null>;
  /** A page of the project's agents, oldest first (ties by id), and whether more follow. */
  listAgents(projectId: string, page: { limit: number; offset: number }): Promise<{ agents: AgentRecord[]; hasMore: boolean }>;
  /**
   * Apply a patch and return the updated agent (null when it does not exist); throws `conflict` when a new
   * slug is taken in the project.
   */
  updateAgent(id: string, patch: AgentPatch): Promise<AgentRecord | null>;
  /** Delete an agent with its runs and steps; deleting a missing one is a no-op. */
  deleteAgent(id: string): Promise<void>;
}
