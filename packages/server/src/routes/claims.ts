import { responses, schemas } from '@dossier/core';
import { openSse } from '../http/sse.ts';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

const keyErrors = { 401: 'API key required', 404: 'Not found' };

/** Claims of documents, the claim map stream, and recomputing a collection's claims. */
export function claimRoutes({ dossier }: RouteDeps): RouteDef[] {
  const claims = dossier.claims;
  const recompute = (method: 'post' | 'patch') =>
    route({
      method,
      path: '/v1/collections/:id/recompute/claims',
      operationId: method === 'post' ? 'recomputeClaims' : 'recomputeClaimsByPatch',
      tag: 'claims',
      auth: 'key',
      summary: 'Delete every claim and the cached claim map, then re-enqueue extraction of every ready document (POST or PATCH)',
      responses: { 204: 'Claims deleted; extraction re-enqueued when a model provider is configured', ...keyErrors },
      handle: async (ctx, { caller }) => {
        await claims.recomputeClaims(caller, ctx.params.id);
        noContent(ctx);
      },
    });
  return [
    route({
      method: 'get',
      path: '/v1/documents/:id/claims',
      operationId: 'listDocumentClaims',
      tag: 'claims',
      auth: 'key',
      query: schemas.claimsQuerySchema,
      summary: 'Claims of a document with importance ≥ minImportance, in document order',
      responses: { 200: { description: 'The claims', schema: responses.documentClaims }, ...keyErrors },
      handle: async (ctx, { caller, query, reply }) => reply(200, await claims.documentClaims(caller, ctx.params.id, query.minImportance)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/claims/map',
      operationId: 'streamClaimMap',
      tag: 'claims',
      auth: 'key',
      longRunning: true,
      summary: 'The claim map as Server-Sent Events: progress {pct}, then done {total, claims: ClaimMapItem[]} or error {message}',
      responses: { 200: { description: 'Events {type: progress|done|error}', contentType: 'text/event-stream' }, ...keyErrors },
      handle: async (ctx, { caller }) => {
        // Access fails here as an HTTP status, before the stream opens.
        const build = await claims.openClaimMap(caller, ctx.params.id);
        const stream = openSse(ctx);
        const work = build((pct) => stream.send({ type: 'progress', pct }));
        void work
          .then((map) => stream.send({ type: 'done', ...map }))
          .catch((err: unknown) =>
            stream.send({ type: 'error', message: err instanceof Error && err.name === 'DossierError' ? err.message : 'Claim map failed' }),
          )
          .finally(() => stream.close());
      },
    }),
    recompute('post'),
    recompute('patch'),
  ];
}
