import type { AgentPatch, AgentRecord, AgentRunRecord, AgentRunStatus, AgentRunStepRecord } from '../domain/agents.ts';
import type { ServiceEvent } from '../events/catalogue.ts';

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

  /** Insert a run as it starts (status `running`). */
  insertAgentRun(run: AgentRunRecord): Promise<void>;
  /**
   * Save how a run ended, its steps and `events` (its `agent.run.completed`) in one transaction. Ending a run
   * that was deleted meanwhile saves nothing.
   */
  finishAgentRun(run: AgentRunRecord, steps: AgentRunStepRecord[], events?: ServiceEvent[]): Promise<void>;
  /** A run by id (with its snapshot), or null. */
  getAgentRun(id: string): Promise<AgentRunRecord | null>;
  /** A page of an agent's runs, newest first (ties by id, descending), optionally of one status. */
  listAgentRuns(agentId: string, page: { limit: number; offset: number; status?: AgentRunStatus }): Promise<{ runs: AgentRunRecord[]; hasMore: boolean }>;
  /** A page of a run's steps by stepIndex. */
  listAgentRunSteps(runId: string, page: { limit: number; offset: number }): Promise<{ steps: AgentRunStepRecord[]; hasMore: boolean }>;
  /** Delete a run with its steps; a missing one is a no-op. */
  deleteAgentRun(id: string): Promise<void>;
  /** End runs still `running` that started before `before` (a crashed process) as `failed`; returns how many. */
  failStaleAgentRuns(before: string, error: string): Promise<number>;
}
