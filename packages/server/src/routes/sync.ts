import { responses, schemas } from '@dossier/core';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** Issue 43: what a sync compares a folder or bucket with (the collection's source manifest). */
export function syncRoutes({ dossier }: RouteDeps): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/v1/collections/:id/manifest',
      operationId: 'getSourceManifest',
      tag: 'documents',
      auth: 'key',
      summary: 'Documents that came from a source path (sync), by path: path, content hash, document id, version, status (keyset paged with `after`)',
      query: schemas.manifestQuerySchema,
      responses: { 200: { description: 'A page of the manifest', schema: responses.manifest }, 404: 'Not found' },
      handle: async (ctx, { caller, query, reply }) => reply(200, await dossier.documents.manifest(caller, ctx.params.id, query)),
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/manifest/delete',
      operationId: 'deleteSourcePaths',
      tag: 'documents',
      auth: 'key',
      body: schemas.deleteByPathSchema,
      summary:
        'Delete, softly, the documents of up to 500 source paths (a sync whose files are gone): hidden at once, removed for good after the grace period (7 days)',
      responses: {
        200: { description: 'The documents deleted and when they are purged', schema: responses.softDeleted },
        400: 'Invalid input',
        404: 'Not found',
      },
      handle: async (ctx, { caller, body, reply }) => reply(200, await dossier.sources.softDeleteByPath(caller, ctx.params.id, body)),
    }),
  ];
}
