import { EvaluationGuardRefusal, responses, schemas } from '@dossier/core';
import type { evaluationSchemas } from '@dossier/core/internal';
import { z } from 'zod';
import { noContent, type RouteDef, type RouteDeps, route, send } from './define.ts';

/** /v1/collections: create, list, get, stats, update, soft delete. */
export function collectionRoutes({ dossier }: RouteDeps): RouteDef[] {
  const c = dossier.collections;
  const update = (method: 'patch' | 'put') =>
    route({
      method,
      path: '/v1/collections/:id',
      operationId: method === 'patch' ? 'updateCollection' : 'replaceCollection',
      tag: 'collections',
      auth: 'key',
      summary: method === 'patch' ? 'Update a collection' : 'Update a collection (same as PATCH)',
      body: schemas.updateCollectionSchema,
      responses: {
        200: { description: 'The updated collection', schema: responses.collection },
        404: 'Not found',
        409: "The collection's evaluation guard refused the change (issue 38): the {error} body also carries `guard` with both nDCG@10 figures (beforeNdcg10, afterNdcg10, maxNdcgDrop, beforeRunId, afterRunId); send force: true to apply it anyway",
      },
      handle: async (ctx, { caller, body, reply }) => {
        try {
          reply(200, await c.update(caller, ctx.params.id, body));
        } catch (err) {
          if (!(err instanceof EvaluationGuardRefusal)) throw err;
          const refusal: z.output<typeof evaluationSchemas.guardRefusal> = { error: err.message, guard: err.guard };
          send(ctx, 409, refusal);
        }
      },
    });
  return [
    route({
      method: 'post',
      path: '/v1/collections',
      operationId: 'createCollection',
      idempotent: true,
      tag: 'collections',
      auth: 'key',
      summary: 'Create a collection',
      body: schemas.createCollectionSchema,
      responses: { 201: { description: 'The new collection', schema: responses.collection }, 403: 'projectId of another project' },
      handle: async (_ctx, { caller, body, reply }) => reply(201, await c.create(caller, body)),
    }),
    route({
      method: 'get',
      path: '/v1/collections',
      operationId: 'listCollections',
      tag: 'collections',
      auth: 'key',
      summary: "List the project's collections",
      responses: { 200: { description: "The project's collections", schema: responses.collection.array() } },
      handle: async (_ctx, { caller, reply }) => reply(200, await c.list(caller)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id',
      operationId: 'getCollection',
      tag: 'collections',
      auth: 'key-or-public',
      summary:
        "Get a collection: the whole Collection to its owner's keys; a PublicCollection (id, name, description, visibility, counts; no research instructions, model or pipeline settings) to anyone else reading a public one, anonymous callers included",
      responses: {
        200: {
          description: "The collection (Collection to its owner's keys, PublicCollection to anyone else)",
          schema: z.union([responses.collection, responses.publicCollection]),
        },
        404: 'Not found',
      },
      handle: async (ctx, { caller, reply }) => reply(200, await c.show(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/stats',
      operationId: 'getCollectionStats',
      tag: 'collections',
      auth: 'key-or-public',
      summary: 'Collection statistics',
      responses: { 200: { description: 'Counts and sizes', schema: responses.collectionStats }, 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await c.stats(caller, ctx.params.id)),
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/describe',
      operationId: 'describeCollection',
      tag: 'collections',
      auth: 'key',
      longRunning: true,
      summary:
        "Write the collection's description with the fast model from its file names and headings (svc_describe_collection), save it, and return the collection",
      responses: {
        200: { description: 'The collection with its new description', schema: responses.collection },
        400: 'No model provider configured',
        401: 'API key required',
        404: 'Not found',
        409: 'No ready documents to describe',
        503: 'The model provider failed',
      },
      handle: async (ctx, { caller, reply }) => reply(200, await c.describe(caller, ctx.params.id)),
    }),
    update('patch'),
    update('put'),
    route({
      method: 'delete',
      path: '/v1/collections/:id',
      operationId: 'deleteCollection',
      tag: 'collections',
      auth: 'key',
      summary: 'Soft-delete a collection',
      responses: { 204: 'Deleted', 404: 'Not found' },
      handle: async (ctx, { caller }) => {
        await c.remove(caller, ctx.params.id);
        noContent(ctx);
      },
    }),
  ];
}
