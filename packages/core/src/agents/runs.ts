import type { SessionClaims } from '../auth/jwt.ts';
import type { AgentRunService } from '../api/agents.ts';
import type { ContextPart, DossierContext } from '../context.ts';
import { AGENT_TIMEOUT_MAX_MS, type AgentRunRecord } from '../domain/agents.ts';
import { DossierError, isDossierError, notFound } from '../domain/errors.ts';
import type { ResearchSettings } from '../research/run.ts';
import { parseInput } from '../schemas.ts';
import type { SearchService } from '../search/query.ts';
import { isUuid } from '../util/ids.ts';
import { requireOrgRole } from '../auth/roles.ts';
import { requireProjectRole } from './access.ts';
import type { AgentProgress, AgentStreamEvent, AgentSyncResult } from './events.ts';
import { type AgentCaller, agentOf, planInvocation, planPreview } from './invocation.ts';
import { agentRun } from './run.ts';
import { listRunsQuerySchema, listStepsQuerySchema } from './schemas.ts';
import type { ProjectPath } from './service.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** An AgentRun as the API shows it; lists omit the snapshot (spec). */
export type AgentRunView = z.output<typeof responses.agentRun>;
export type AgentRunStepView = z.output<typeof responses.agentRunStep>;

const runView = ({ projectId: _p, ...run }: AgentRunRecord): AgentRunView => run;
const runListItem = ({ agentSnapshot: _s, ...run }: AgentRunView): Omit<AgentRunView, 'agentSnapshot'> => run;

/** Runs still `running` this long after they started belong to a process that died: the longest run plus margin. */
const STALE_RUN_MS = AGENT_TIMEOUT_MAX_MS + 60_000;

/** A failure escaping the run becomes an `error` event, then `done` (failed) is still owed: the stream always ends with `done`. */
async function* guarded(
  ctx: ContextPart<'log'>,
  runId: string,
  run: AsyncGenerator<AgentStreamEvent | AgentProgress, unknown>,
): AsyncGenerator<AgentStreamEvent | AgentProgress> {
  try {
    yield* run;
  } catch (err) {
    ctx.log.error('agent run failed', { runId, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    const known = isDossierError(err) && err.code !== 'internal';
    yield { type: 'error', message: known ? err.message : 'The run failed with an internal error', code: known ? err.code : 'internal' };
    yield { type: 'done', runId, status: 'failed', response: '', iterationsUsed: 0, sources: [], contradictionFlags: [] };
  }
}

/** Invoking hosted agents, previews, and their stored runs (spec: Hosted agents). */
/** The run service with the start-up clean-up the Dossier calls itself (kept off `Dossier`). */
export interface AgentRunServiceWithInternals extends AgentRunService {
  /** End runs a crashed process left `running` (called at start). */
  failStaleRuns(): Promise<number>;
}

export function agentRunService(ctx: DossierContext, search: SearchService, settings: ResearchSettings): AgentRunServiceWithInternals {
  async function runOf(claims: SessionClaims, path: ProjectPath, slug: string, runId: string): Promise<AgentRunRecord> {
    const project = await requireProjectRole(ctx, claims, path, 'member');
    const agent = await agentOf(ctx.store, project.id, slug);
    const run = isUuid(runId) ? await ctx.store.getAgentRun(runId) : null;
    if (!run || run.agentId !== agent.id) throw notFound('Run');
    return run;
  }

  return {
    /**
     * Start a run for the SSE stream. Access, validation, the provider key (402), credits (422) and the org's
     * concurrency cap (429) are checked before the promise resolves; later failures arrive as `error` events.
     */
    async invoke(
      caller: AgentCaller,
      path: ProjectPath,
      slug: string,
      raw: unknown,
      signal: AbortSignal,
    ): Promise<AsyncIterable<AgentStreamEvent | AgentProgress>> {
      const plan = await planInvocation(ctx, caller, path, slug, raw);
      return guarded(ctx, plan.runId, agentRun(ctx, search, plan, settings, signal));
    },
    /** A draft agent's run: the same stream, a `preview-` run id, nothing stored (credits and the cap still apply). */
    async preview(
      caller: AgentCaller,
      path: ProjectPath,
      slug: string,
      raw: unknown,
      signal: AbortSignal,
    ): Promise<AsyncIterable<AgentStreamEvent | AgentProgress>> {
      const plan = await planPreview(ctx, caller, path, slug, raw);
      return guarded(ctx, plan.runId, agentRun(ctx, search, plan, settings, signal));
    },
    /** Run to the end and return the `done` payload with the warnings; 408 when the time limit fired before any answer text. */
    async invokeSync(caller: AgentCaller, path: ProjectPath, slug: string, raw: unknown, signal: AbortSignal): Promise<AgentSyncResult> {
      const plan = await planInvocation(ctx, caller, path, slug, raw);
      const run = agentRun(ctx, search, plan, settings, signal);
      let next = await run.next();
      while (!next.done) next = await run.next();
      const result = next.value;
      if (result.status === 'timeout' && result.response === '') {
        throw new DossierError('timeout', `The agent's time limit of ${plan.agent.timeoutMs} ms passed before it wrote an answer (run ${result.runId})`);
      }
      return result;
    },
    async listRuns(claims: SessionClaims, path: ProjectPath, slug: string, rawQuery: unknown) {
      const project = await requireProjectRole(ctx, claims, path, 'member');
      const agent = await agentOf(ctx.store, project.id, slug);
      const page = await ctx.store.listAgentRuns(agent.id, parseInput(listRunsQuerySchema, rawQuery ?? {}));
      return { runs: page.runs.map((run) => runListItem(runView(run))), hasMore: page.hasMore };
    },
    async getRun(claims: SessionClaims, path: ProjectPath, slug: string, runId: string): Promise<AgentRunView> {
      return runView(await runOf(claims, path, slug, runId));
    },
    /** A page of the run's steps by stepIndex (an array: page on with offset until fewer than limit come back). */
    async listSteps(claims: SessionClaims, path: ProjectPath, slug: string, runId: string, rawQuery: unknown) {
      const run = await runOf(claims, path, slug, runId);
      const page = await ctx.store.listAgentRunSteps(run.id, parseInput(listStepsQuerySchema, rawQuery ?? {}));
      return page.steps.map(({ runId: _r, ...step }): AgentRunStepView => step);
    },
    /**
     * Delete a run with its steps (issue 33): members delete the runs they started, admins any run (also those of
     * other members and of org keys), so a member cannot erase what others did.
     */
    async deleteRun(claims: SessionClaims, path: ProjectPath, slug: string, runId: string): Promise<void> {
      const run = await runOf(claims, path, slug, runId);
      if (run.createdBy !== claims.accountId) await requireOrgRole(ctx.store, claims, path.orgId, 'admin', 'Deleting a run someone else started');
      await ctx.store.deleteAgentRun(run.id);
    },
    /** End runs a crashed process left `running` (called at start). */
    async failStaleRuns(): Promise<number> {
      return ctx.store.failStaleAgentRuns(new Date(Date.now() - STALE_RUN_MS).toISOString(), 'The server stopped while the run was in progress');
    },
  };
}

export type { AgentRunService };
