import { schemas } from '@dossier/core';
import { apiAccess, requireApiAccess } from '../http/auth.ts';
import { noContent, type RouteDef, type RouteDeps, send } from './define.ts';

/** /v1/collections: create, list, get, stats, update, soft delete. */
export function collectionRoutes({ dossier }: RouteDeps): RouteDef[] {
  const c = dossier.collections;
  const update: RouteDef['handle'] = async (ctx, { body }) =>
    send(ctx, 200, await c.update(requireApiAccess(ctx), ctx.params.id, body as schemas.UpdateCollectionInput));
  return [
    {
      method: 'post', path: '/v1/collections', idempotent: true, tag: 'collections', auth: 'key', summary: 'Create a collection',
      body: schemas.createCollectionSchema, responses: { 201: 'Collection', 400: 'Invalid input', 403: 'projectId of another project' },
      handle: async (ctx, { body }) => send(ctx, 201, await c.create(requireApiAccess(ctx), body as schemas.CreateCollectionInput)),
    },
    {
      method: 'get', path: '/v1/collections', tag: 'collections', auth: 'key', summary: "List the project's collections",
      responses: { 200: 'array of Collection' },
      handle: async (ctx) => send(ctx, 200, await c.list(requireApiAccess(ctx))),
    },
    {
      method: 'get', path: '/v1/collections/:id', tag: 'collections', auth: 'key-or-public', summary: 'Get a collection',
      responses: { 200: 'Collection', 404: 'Not found' },
      handle: async (ctx) => send(ctx, 200, await c.get(apiAccess(ctx), ctx.params.id)),
    },
    {
      method: 'get', path: '/v1/collections/:id/stats', tag: 'collections', auth: 'key-or-public', summary: 'Collection statistics',
      responses: { 200: 'CollectionStats', 404: 'Not found' },
      handle: async (ctx) => send(ctx, 200, await c.stats(apiAccess(ctx), ctx.params.id)),
    },
    {
      method: 'post', path: '/v1/collections/:id/describe', tag: 'collections', auth: 'key', longRunning: true,
      summary: "Write the collection's description with the fast model from its file names and headings (svc_describe_collection), save it, and return the collection",
      responses: {
        200: 'Collection with the new description', 400: 'No model provider configured', 401: 'API key required', 404: 'Not found',
        409: 'No ready documents to describe', 503: 'The model provider failed',
      },
      handle: async (ctx) => send(ctx, 200, await c.describe(requireApiAccess(ctx), ctx.params.id)),
    },
    {
      method: 'patch', path: '/v1/collections/:id', tag: 'collections', auth: 'key', summary: 'Update a collection',
      body: schemas.updateCollectionSchema, responses: { 200: 'Collection', 400: 'Invalid input', 404: 'Not found' }, handle: update,
    },
    {
      method: 'put', path: '/v1/collections/:id', tag: 'collections', auth: 'key', summary: 'Update a collection (same as PATCH)',
      body: schemas.updateCollectionSchema, responses: { 200: 'Collection', 400: 'Invalid input', 404: 'Not found' }, handle: update,
    },
    {
      method: 'delete', path: '/v1/collections/:id', tag: 'collections', auth: 'key', summary: 'Soft-delete a collection',
      responses: { 204: 'Deleted', 404: 'Not found' },
      handle: async (ctx) => {
        await c.remove(requireApiAccess(ctx), ctx.params.id);
        noContent(ctx);
      },
    },
  ];
}
