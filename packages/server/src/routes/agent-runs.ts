import { type AgentCaller, responses, schemas } from '@dossier/core';
import type { Context } from 'koa';
import { openSse } from '../http/sse.ts';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';
import { pump } from './research.ts';

/**
 * Hosted agents, invocation and runs (spec: Hosted agents). A JWT of a member of the project's org; invoke also
 * takes an org API key. Preview runs a draft, a write: a JWT of an org admin only (issue 33). Invoke and preview check
 * the provider key (402), credits (422) and the org's concurrency cap (429 with Retry-After) before the stream
 * opens; after that the same conditions arrive as `error` events, and `done` is always last.
 */
export function agentRunRoutes({ dossier }: RouteDeps): RouteDef[] {
  const agents = dossier.agents;
  const base = '/v1/orgs/:orgId/projects/:projectId/agents/:agentSlug';
  const path = (ctx: Context) => ({ orgId: ctx.params.orgId, projectId: ctx.params.projectId });
  const denied = { 401: 'JWT required', 404: 'Org, project, agent or run not found (also when the account is not a member)' };
  const startErrors = {
    ...denied,
    400: 'Invalid input (also an outputSchema that does not compile)',
    402: "The project has no provider key for the agent's model (the managed key is never used)",
    422: "The project's monthly credits are spent",
    429: "The org's concurrent agent runs are all in use (Retry-After)",
  };
  const stream = (start: typeof agents.invoke) => async (ctx: Context, caller: AgentCaller, body: unknown) => {
    const cancel = new AbortController();
    const events = await start(caller, path(ctx), ctx.params.agentSlug, body, cancel.signal);
    const sse = openSse(ctx);
    // A client that disconnects cancels the run and its provider call; the run is stored as cancelled.
    sse.signal.addEventListener('abort', () => cancel.abort(), { once: true });
    void pump(events, sse);
  };
  const invoke = stream(agents.invoke);
  const preview = stream(agents.preview);
  const streamShape =
    'text/event-stream: run_started, tool_call {tool, collectionId, args, stepIndex}, tool_result {tool, summary, stepIndex}, chunk, warning, error {message, code}, then done {runId, status, response, iterationsUsed, sources, contradictionFlags, structuredOutput?}, always last. Comment lines say what the run waits on';
  return [
    route({
      method: 'post',
      path: `${base}/invoke`,
      operationId: 'invokeAgent',
      tag: 'agents',
      auth: 'jwt-or-org-key',
      role: 'member',
      longRunning: true,
      body: schemas.invokeAgentSchema,
      summary: 'Invoke an agent, streamed as Server-Sent Events. documentId scopes every tool call to one document',
      responses: { 200: { description: streamShape, contentType: 'text/event-stream' }, ...startErrors },
      handle: (ctx, { caller, body }) => invoke(ctx, caller, body),
    }),
    route({
      method: 'post',
      path: `${base}/invoke/sync`,
      operationId: 'invokeAgentSync',
      tag: 'agents',
      auth: 'jwt-or-org-key',
      role: 'member',
      longRunning: true,
      body: schemas.invokeAgentSchema,
      summary: 'Invoke an agent and return the done payload with its warnings',
      responses: {
        200: { description: "The done payload with the run's warnings", schema: responses.agentSyncResult },
        408: 'The time limit fired before any answer text',
        ...startErrors,
      },
      handle: async (ctx, { caller, body, reply }) => {
        const cancel = new AbortController();
        ctx.res.once('close', () => cancel.abort());
        reply(200, await agents.invokeSync(caller, path(ctx), ctx.params.agentSlug, body, cancel.signal));
      },
    }),
    route({
      method: 'post',
      path: `${base}/preview`,
      operationId: 'previewAgent',
      tag: 'agents',
      auth: 'jwt',
      role: 'admin',
      longRunning: true,
      body: schemas.previewAgentSchema,
      summary:
        "Run a draft agent (admin: a draft is a write): the draft's fields over the saved agent of that slug (or a new one: then systemPrompt and model are required); its allow-list is enforced as a saved agent's; run id preview-…, nothing stored, credits and the concurrency cap apply",
      responses: {
        200: { description: streamShape, contentType: 'text/event-stream' },
        ...startErrors,
        403: 'Needs the admin role in the org (members invoke saved agents; org keys cannot preview)',
      },
      // A draft runs as the signed-in person (org keys cannot preview).
      handle: (ctx, { caller, body }) => preview(ctx, { session: { accountId: caller.accountId, email: caller.email } }, body),
    }),
    route({
      method: 'get',
      path: `${base}/runs`,
      operationId: 'listAgentRuns',
      tag: 'agents',
      auth: 'jwt',
      role: 'member',
      query: schemas.listRunsQuerySchema,
      summary: "The agent's runs, newest first (limit 1 to 100, default 20; offset; status); agentSnapshot and steps omitted",
      responses: {
        200: { description: 'A page of runs (agentSnapshot and steps omitted)', schema: responses.agentRunList },
        400: 'Invalid limit, offset or status',
        ...denied,
      },
      handle: async (ctx, { caller, query, reply }) => reply(200, await agents.listRuns(caller, path(ctx), ctx.params.agentSlug, query)),
    }),
    route({
      method: 'get',
      path: `${base}/runs/:runId`,
      operationId: 'getAgentRun',
      tag: 'agents',
      auth: 'jwt',
      role: 'member',
      summary: 'A run, with the agentSnapshot taken when it started',
      responses: { 200: { description: 'The run with its agentSnapshot', schema: responses.agentRun }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await agents.getRun(caller, path(ctx), ctx.params.agentSlug, ctx.params.runId)),
    }),
    route({
      method: 'get',
      path: `${base}/runs/:runId/steps`,
      operationId: 'listAgentRunSteps',
      tag: 'agents',
      auth: 'jwt',
      role: 'member',
      query: schemas.listStepsQuerySchema,
      summary: "A run's steps by stepIndex: one per message, tool_call and tool_result (limit 1 to 500, default 100; offset)",
      responses: { 200: { description: 'The steps by stepIndex', schema: responses.agentRunStep.array() }, 400: 'Invalid limit or offset', ...denied },
      handle: async (ctx, { caller, query, reply }) => reply(200, await agents.listSteps(caller, path(ctx), ctx.params.agentSlug, ctx.params.runId, query)),
    }),
    route({
      method: 'delete',
      path: `${base}/runs/:runId`,
      operationId: 'deleteAgentRun',
      tag: 'agents',
      auth: 'jwt',
      role: 'member',
      summary: 'Delete a run with its steps (members their own runs, admins any run)',
      responses: { 204: 'Deleted', ...denied, 403: 'The run was started by someone else: deleting it needs the admin role in the org' },
      handle: async (ctx, { caller }) => {
        await agents.deleteRun(caller, path(ctx), ctx.params.agentSlug, ctx.params.runId);
        noContent(ctx);
      },
    }),
  ];
}
