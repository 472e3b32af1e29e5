import { responses, schemas } from '@dossier/core';
import { type RouteDef, type RouteDeps, route } from './define.ts';

const keyErrors = { 401: 'API key required', 404: 'Not found' };

/**
 * Near-duplicate detection and review (spec: Duplicates). Methods where the spec says "see note": promote is
 * PATCH /duplicates/:groupId {canonicalDocumentId} (POST accepted too); disband is DELETE /duplicates/:groupId,
 * answered 200 {success, groupId, members}.
 */
export function duplicateRoutes({ dossier }: RouteDeps): RouteDef[] {
  const duplicates = dossier.duplicates;
  const promote = (method: 'patch' | 'post') =>
    route({
      method,
      path: '/v1/collections/:id/duplicates/:groupId',
      operationId: method === 'patch' ? 'promoteDuplicate' : 'promoteDuplicateByPost',
      tag: 'duplicates',
      auth: 'key',
      body: schemas.promoteDuplicateSchema,
      summary: 'Promote a member to canonical; the old canonical becomes a near_duplicate with its coverage cleared',
      responses: { 200: { description: 'Whether the canonical changed', schema: responses.duplicatePromoted }, 400: 'Not a member of the group', ...keyErrors },
      handle: async (ctx, { caller, body, reply }) => reply(200, await duplicates.promote(caller, ctx.params.id, ctx.params.groupId, body.canonicalDocumentId)),
    });
  return [
    route({
      method: 'post',
      path: '/v1/collections/:id/duplicates/detect',
      operationId: 'detectDuplicates',
      tag: 'duplicates',
      auth: 'key',
      summary: 'Detect near-duplicates among every ready document (fingerprint jobs, then grouping)',
      responses: { 202: { description: 'The run, pending', schema: responses.duplicateRunStarted }, 409: 'A run is already in flight', ...keyErrors },
      handle: async (ctx, { caller, reply }) => reply(202, await duplicates.detect(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/duplicates/runs/latest',
      operationId: 'getLatestDuplicateRun',
      tag: 'duplicates',
      auth: 'key',
      summary: 'The newest duplicate detection run',
      responses: { 200: { description: 'The run', schema: responses.duplicateRun }, ...keyErrors },
      handle: async (ctx, { caller, reply }) => reply(200, await duplicates.latestRun(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/duplicates',
      operationId: 'listDuplicateGroups',
      tag: 'duplicates',
      auth: 'key',
      query: schemas.duplicateListQuerySchema,
      summary: 'Duplicate groups, newest first',
      responses: { 200: { description: 'A page of groups and the total', schema: responses.duplicateGroupList }, 400: 'Invalid limit or offset', ...keyErrors },
      handle: async (ctx, { caller, query, reply }) => reply(200, await duplicates.list(caller, ctx.params.id, query)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/duplicates/:groupId/compare',
      operationId: 'compareDuplicateMembers',
      tag: 'duplicates',
      auth: 'key',
      query: schemas.duplicateCompareQuerySchema,
      summary:
        'Compare any two members of a group (query left, right: their document ids): coverage each way and the passages they share, as spans of each Markdown',
      responses: {
        200: { description: 'The comparison', schema: responses.duplicateComparison },
        400: 'left or right missing, the same, or not members of the group',
        ...keyErrors,
      },
      handle: async (ctx, { caller, query, reply }) => reply(200, await duplicates.compare(caller, ctx.params.id, ctx.params.groupId, query)),
    }),
    promote('patch'),
    promote('post'),
    route({
      method: 'delete',
      path: '/v1/collections/:id/duplicates/:groupId',
      operationId: 'disbandDuplicateGroup',
      tag: 'duplicates',
      auth: 'key',
      summary: 'Disband a group: every member back in retrieval; detection will not group them again',
      responses: { 200: { description: 'The group disbanded and how many members it had', schema: responses.duplicateDisbanded }, ...keyErrors },
      handle: async (ctx, { caller, reply }) => reply(200, await duplicates.disband(caller, ctx.params.id, ctx.params.groupId)),
    }),
  ];
}
