import { schemas } from '@dossier/core';
import { requireApiAccess } from '../http/auth.ts';
import { type RouteDef, type RouteDeps, send } from './define.ts';

const keyErrors = { 401: 'API key required', 404: 'Not found' };

/**
 * Near-duplicate detection and review (spec: Duplicates). Methods where the spec says "see note": promote is
 * PATCH /duplicates/:groupId {canonicalDocumentId} (POST accepted too); disband is DELETE /duplicates/:groupId,
 * answered 200 {success, groupId, members}.
 */
export function duplicateRoutes({ dossier }: RouteDeps): RouteDef[] {
  const duplicates = dossier.duplicates;
  const promote: RouteDef['handle'] = async (ctx, { body }) => {
    const { canonicalDocumentId } = body as { canonicalDocumentId: string };
    send(ctx, 200, await duplicates.promote(requireApiAccess(ctx), ctx.params.id, ctx.params.groupId, canonicalDocumentId));
  };
  const promoteRoute = (method: 'patch' | 'post'): RouteDef => ({
    method, path: '/v1/collections/:id/duplicates/:groupId', tag: 'duplicates', auth: 'key', body: schemas.promoteDuplicateSchema, handle: promote,
    summary: 'Promote a member to canonical; the old canonical becomes a near_duplicate with its coverage cleared',
    responses: { 200: '{success, changed}', 400: 'Not a member of the group', ...keyErrors },
  });
  return [
    {
      method: 'post', path: '/v1/collections/:id/duplicates/detect', tag: 'duplicates', auth: 'key',
      summary: 'Detect near-duplicates among every ready document (fingerprint jobs, then grouping)',
      responses: { 202: '{runId, status: "pending", jobsEnqueued, enqueuedAt}', 409: 'A run is already in flight', ...keyErrors },
      handle: async (ctx) => send(ctx, 202, await duplicates.detect(requireApiAccess(ctx), ctx.params.id)),
    },
    {
      method: 'get', path: '/v1/collections/:id/duplicates/runs/latest', tag: 'duplicates', auth: 'key',
      summary: 'The newest duplicate detection run', responses: { 200: 'DuplicateRun', ...keyErrors },
      handle: async (ctx) => send(ctx, 200, await duplicates.latestRun(requireApiAccess(ctx), ctx.params.id)),
    },
    {
      method: 'get', path: '/v1/collections/:id/duplicates', tag: 'duplicates', auth: 'key', query: schemas.duplicateListQuerySchema,
      summary: 'Duplicate groups, newest first', responses: { 200: '{total, items: array of DuplicateGroup}', 400: 'Invalid limit or offset', ...keyErrors },
      handle: async (ctx, { query }) =>
        send(ctx, 200, await duplicates.list(requireApiAccess(ctx), ctx.params.id, query as { limit: number; offset: number })),
    },
    promoteRoute('patch'),
    promoteRoute('post'),
    {
      method: 'delete', path: '/v1/collections/:id/duplicates/:groupId', tag: 'duplicates', auth: 'key',
      summary: 'Disband a group: every member back in retrieval; detection will not group them again',
      responses: { 200: '{success, groupId, members}', ...keyErrors },
      handle: async (ctx) => send(ctx, 200, await duplicates.disband(requireApiAccess(ctx), ctx.params.id, ctx.params.groupId)),
    },
  ];
}
