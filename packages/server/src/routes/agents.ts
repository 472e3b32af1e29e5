import { responses, schemas } from '@dossier/core';
import type { Context } from 'koa';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

/** Hosted agents, management plane (spec: Hosted agents). JWT only; admins write, members read. */
export function agentRoutes({ dossier }: RouteDeps): RouteDef[] {
  const agents = dossier.agents;
  const base = '/v1/orgs/:orgId/projects/:projectId/agents';
  const path = (ctx: Context) => ({ orgId: ctx.params.orgId, projectId: ctx.params.projectId });
  const denied = { 401: 'JWT required', 404: 'Org, project or agent not found (also when the account is not a member)' };
  const adminDenied = { ...denied, 403: 'Needs the admin role in the org' };
  return [
    route({
      method: 'post',
      path: base,
      operationId: 'createAgent',
      idempotent: true,
      tag: 'agents',
      auth: 'jwt',
      role: 'admin',
      body: schemas.createAgentSchema,
      summary: 'Create a hosted agent (admin). allowedCollectionIds null allows every collection of the project; an empty array is rejected',
      responses: {
        201: { description: 'The agent', schema: responses.agent },
        400: 'Invalid input (also an empty allowedCollectionIds, or a collection of another project)',
        409: 'Slug already used in the project',
        ...adminDenied,
      },
      handle: async (ctx, { caller, body, reply }) => reply(201, await agents.create(caller, path(ctx), body)),
    }),
    route({
      method: 'get',
      path: base,
      operationId: 'listAgents',
      tag: 'agents',
      auth: 'jwt',
      role: 'member',
      query: schemas.listAgentsQuerySchema,
      summary: 'Agents of the project, oldest first (limit 1 to 100, default 20; offset)',
      responses: { 200: { description: 'A page of agents', schema: responses.agentList }, 400: 'Invalid limit or offset', ...denied },
      handle: async (ctx, { caller, query, reply }) => reply(200, await agents.list(caller, path(ctx), query)),
    }),
    route({
      method: 'get',
      path: `${base}/:agentId`,
      operationId: 'getAgent',
      tag: 'agents',
      auth: 'jwt',
      role: 'member',
      summary: 'An agent, by id or slug',
      responses: { 200: { description: 'The agent', schema: responses.agent }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await agents.get(caller, path(ctx), ctx.params.agentId)),
    }),
    route({
      method: 'patch',
      path: `${base}/:agentId`,
      operationId: 'updateAgent',
      tag: 'agents',
      auth: 'jwt',
      role: 'admin',
      body: schemas.updateAgentSchema,
      summary:
        'Update an agent as a JSON Merge Patch (admin): omitted keys stay, null clears (allowedCollectionIds null widens to all, timeoutMs null restores the default); a new slug needs confirmSlugChange true',
      responses: {
        200: { description: 'The agent', schema: responses.agent },
        400: 'Invalid input, or a slug change without confirmSlugChange',
        409: 'Slug already used in the project',
        ...adminDenied,
      },
      handle: async (ctx, { caller, body, reply }) => reply(200, await agents.update(caller, path(ctx), ctx.params.agentId, body)),
    }),
    route({
      method: 'delete',
      path: `${base}/:agentId`,
      operationId: 'deleteAgent',
      tag: 'agents',
      auth: 'jwt',
      role: 'admin',
      summary: 'Delete an agent with its runs and steps (admin)',
      responses: { 204: 'Deleted', ...adminDenied },
      handle: async (ctx, { caller }) => {
        await agents.remove(caller, path(ctx), ctx.params.agentId);
        noContent(ctx);
      },
    }),
  ];
}
