import { responses, schemas } from '@dossier/core';
import type { Context } from 'koa';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

/** Issue 43: folders on the server synced into a project's collections. JWT only; admins write, members read. */
export function sourceRoutes({ dossier }: RouteDeps): RouteDef[] {
  const sources = dossier.sources;
  const base = '/v1/orgs/:orgId/projects/:projectId/sources';
  const path = (ctx: Context) => ({ orgId: ctx.params.orgId, projectId: ctx.params.projectId });
  const denied = { 401: 'JWT required', 404: 'Org, project or source not found (also when the account is not a member)' };
  const adminDenied = { ...denied, 403: 'Needs the admin role in the org' };
  const one = (description: string) => ({ description, schema: responses.source });
  return [
    route({
      method: 'post',
      path: base,
      operationId: 'createSource',
      tag: 'sources',
      auth: 'jwt',
      role: 'admin',
      body: schemas.createSourceSchema,
      summary: 'Add a source (admin): a folder on the server (inside DOSSIER_SOURCE_FOLDERS) synced into a collection, every intervalMinutes or on demand',
      responses: { 201: one('The source'), 400: 'Invalid input, or a folder outside the allowed ones', ...adminDenied },
      handle: async (ctx, { caller, body, reply }) => reply(201, await sources.create(caller, path(ctx), body)),
    }),
    route({
      method: 'get',
      path: base,
      operationId: 'listSources',
      tag: 'sources',
      auth: 'jwt',
      role: 'member',
      summary: "Sources of the project's collections, oldest first",
      responses: { 200: { description: 'The sources', schema: responses.source.array() }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await sources.list(caller, path(ctx))),
    }),
    route({
      method: 'get',
      path: `${base}/:sourceId`,
      operationId: 'getSource',
      tag: 'sources',
      auth: 'jwt',
      role: 'member',
      summary: 'A source',
      responses: { 200: one('The source'), ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await sources.get(caller, path(ctx), ctx.params.sourceId)),
    }),
    route({
      method: 'patch',
      path: `${base}/:sourceId`,
      operationId: 'updateSource',
      tag: 'sources',
      auth: 'jwt',
      role: 'admin',
      body: schemas.updateSourceSchema,
      summary: 'Pause or resume a source, change its schedule or its deletion limit (admin)',
      responses: { 200: one('The source'), 400: 'Invalid input', ...adminDenied },
      handle: async (ctx, { caller, body, reply }) => reply(200, await sources.update(caller, path(ctx), ctx.params.sourceId, body)),
    }),
    route({
      method: 'delete',
      path: `${base}/:sourceId`,
      operationId: 'deleteSource',
      tag: 'sources',
      auth: 'jwt',
      role: 'admin',
      summary: 'Remove a source and its runs (admin); its documents stay',
      responses: { 204: 'Removed', ...adminDenied },
      handle: async (ctx, { caller }) => {
        await sources.remove(caller, path(ctx), ctx.params.sourceId);
        noContent(ctx);
      },
    }),
    route({
      method: 'post',
      path: `${base}/:sourceId/runs`,
      operationId: 'runSource',
      tag: 'sources',
      auth: 'jwt',
      role: 'admin',
      body: schemas.runSourceSchema,
      summary:
        'Sync the source now (admin); `force` lets the run delete more than the source share. The run is recorded at once and completes in the background',
      responses: { 202: { description: 'The run, running', schema: responses.sourceRun }, 400: 'Invalid input', ...adminDenied },
      handle: async (ctx, { caller, body, reply }) => reply(202, await sources.runNow(caller, path(ctx), ctx.params.sourceId, body)),
    }),
    route({
      method: 'get',
      path: `${base}/:sourceId/runs`,
      operationId: 'listSourceRuns',
      tag: 'sources',
      auth: 'jwt',
      role: 'member',
      summary: "The source's latest 50 runs, newest first, with their counters",
      responses: { 200: { description: 'The runs', schema: responses.sourceRun.array() }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await sources.runs(caller, path(ctx), ctx.params.sourceId)),
    }),
  ];
}
