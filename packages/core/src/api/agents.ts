/**
 * The agents group of the public API (`dossier.agents`): hosted agents of a project (instructions, model, tools,
 * collections) and their runs. Agents are managed by signed-in org members; runs are started by a member's session
 * or an org API key (`AgentCaller`). Agents of other projects answer `not_found`.
 */
import type { AgentProgress, AgentStreamEvent, AgentSyncResult } from '../agents/events.ts';
import type { AgentCaller } from '../agents/invocation.ts';
import type { AgentRunStepView, AgentRunView } from '../agents/runs.ts';
import type { AgentView, ProjectPath } from '../agents/service.ts';
import type { SessionClaims } from '../auth/jwt.ts';

/** Hosted agents: create, list, read, update, delete. */
export interface AgentService {
  /**
   * Create an agent of the project (slug, instructions, model, tools, collections).
   * @throws {DossierError} `not_found` (org or project), `invalid_input`.
   * @example
   * await dossier.agents.create(claims, { orgId, projectId }, { slug: 'helpdesk', name: 'Helpdesk', systemPrompt: 'Answer from the handbook.', model: 'claude-sonnet-4-5', allowedCollectionIds: [id] });
   */
  create(claims: SessionClaims, path: ProjectPath, raw: unknown): Promise<AgentView>;
  /**
   * A page of the project's agents (`limit`, `offset`), and whether more follow.
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  list(claims: SessionClaims, path: ProjectPath, rawQuery: unknown): Promise<{ agents: AgentView[]; hasMore: boolean }>;
  /**
   * One agent by id or slug.
   * @throws {DossierError} `not_found`.
   */
  get(claims: SessionClaims, path: ProjectPath, idOrSlug: string): Promise<AgentView>;
  /**
   * Change an agent; changing its slug needs `confirmSlugChange: true` (callers invoke it by slug).
   * @throws {DossierError} `not_found`, `invalid_input` (a slug change without `confirmSlugChange`).
   */
  update(claims: SessionClaims, path: ProjectPath, idOrSlug: string, raw: unknown): Promise<AgentView>;
  /**
   * Delete an agent (its runs stay readable by id until deleted).
   * @throws {DossierError} `not_found`.
   */
  remove(claims: SessionClaims, path: ProjectPath, idOrSlug: string): Promise<void>;
}

/** Runs of hosted agents: start (streamed, to the end, or as a draft preview), read and delete. */
export interface AgentRunService {
  /**
   * Start a run for the SSE stream. Access, validation, the provider key (402), credits (422) and the org's
   * concurrency cap (429) are checked before the promise resolves; later failures arrive as `error` events.
   * @throws {DossierError} `not_found`, `invalid_input`, `payment_required` (no provider key), `unprocessable`
   *   (no credits left), `rate_limited` (the org's concurrent-run cap).
   */
  invoke(caller: AgentCaller, path: ProjectPath, slug: string, raw: unknown, signal: AbortSignal): Promise<AsyncIterable<AgentStreamEvent | AgentProgress>>;
  /**
   * A draft agent's run: the same stream, a `preview-` run id, nothing stored (credits and the cap still apply).
   * @throws {DossierError} as `invoke`, and `forbidden` for an org key (drafts need an admin's session).
   */
  preview(caller: AgentCaller, path: ProjectPath, slug: string, raw: unknown, signal: AbortSignal): Promise<AsyncIterable<AgentStreamEvent | AgentProgress>>;
  /**
   * Run to the end and return the `done` payload with the warnings.
   * @throws {DossierError} as `invoke`, and `timeout` when the time limit fired before any answer text.
   * @example
   * const { response, sources } = await dossier.agents.invokeSync(caller, { orgId, projectId }, 'helpdesk', { query: 'How do I reset my password?' }, signal);
   */
  invokeSync(caller: AgentCaller, path: ProjectPath, slug: string, raw: unknown, signal: AbortSignal): Promise<AgentSyncResult>;
  /**
   * A page of the agent's runs, newest first, without their agent snapshots.
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  listRuns(
    claims: SessionClaims,
    path: ProjectPath,
    slug: string,
    rawQuery: unknown,
  ): Promise<{ runs: Omit<AgentRunView, 'agentSnapshot'>[]; hasMore: boolean }>;
  /**
   * One run with the agent as it was when the run started.
   * @throws {DossierError} `not_found` (agent or run).
   */
  getRun(claims: SessionClaims, path: ProjectPath, slug: string, runId: string): Promise<AgentRunView>;
  /**
   * A page of the run's steps by stepIndex (an array: page on with offset until fewer than limit come back).
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  listSteps(claims: SessionClaims, path: ProjectPath, slug: string, runId: string, rawQuery: unknown): Promise<AgentRunStepView[]>;
  /**
   * Delete a run with its steps (issue 33): members delete the runs they started, admins any run (also those of
   * other members and of org keys), so a member cannot erase what others did.
   * @throws {DossierError} `not_found`, `forbidden` (a member deleting a run someone else started).
   */
  deleteRun(claims: SessionClaims, path: ProjectPath, slug: string, runId: string): Promise<void>;
}

/** `dossier.agents`: hosted agents and their runs. */
export interface AgentsApi extends AgentService, AgentRunService {}
