import { schemas } from '@dossier/core';
import { requireApiAccess } from '../http/auth.ts';
import { openSse } from '../http/sse.ts';
import { noContent, type RouteDef, type RouteDeps, send } from './define.ts';

const keyErrors = { 401: 'API key required', 404: 'Not found' };

/** Claims of documents, the claim map stream, and recomputing a collection's claims. */
export function claimRoutes({ dossier }: RouteDeps): RouteDef[] {
  const claims = dossier.claims;
  const recompute: RouteDef['handle'] = async (ctx) => {
    await claims.recomputeClaims(requireApiAccess(ctx), ctx.params.id);
    noContent(ctx);
  };
  const recomputeRoute = (method: 'post' | 'patch'): RouteDef => ({
    method, path: '/v1/collections/:id/recompute/claims', tag: 'claims', auth: 'key', handle: recompute,
    summary: 'Delete every claim and the cached claim map, then re-enqueue extraction of every ready document (POST or PATCH)',
    responses: { 204: 'Claims deleted; extraction re-enqueued when a model provider is configured', ...keyErrors },
  });
  return [
    {
      method: 'get', path: '/v1/documents/:id/claims', tag: 'claims', auth: 'key', query: schemas.claimsQuerySchema,
      summary: 'Claims of a document with importance ≥ minImportance, in document order',
      responses: { 200: '{documentId, claims: array of Claim}', 400: 'Invalid minImportance', ...keyErrors },
      handle: async (ctx, { query }) => {
        const { minImportance } = query as { minImportance: number };
        send(ctx, 200, await claims.documentClaims(requireApiAccess(ctx), ctx.params.id, minImportance));
      },
    },
    {
      method: 'get', path: '/v1/collections/:id/claims/map', tag: 'claims', auth: 'key', longRunning: true,
      summary: 'The claim map as Server-Sent Events: progress {pct}, then done {total, claims: ClaimMapItem[]} or error {message}',
      responses: { 200: 'text/event-stream of {type: progress|done|error}', ...keyErrors },
      handle: async (ctx) => {
        // Access fails here as an HTTP status, before the stream opens.
        const build = await claims.openClaimMap(requireApiAccess(ctx), ctx.params.id);
        const stream = openSse(ctx);
        const work = build((pct) => stream.send({ type: 'progress', pct }));
        void work
          .then((map) => stream.send({ type: 'done', ...map }))
          .catch((err: unknown) => stream.send({ type: 'error', message: err instanceof Error && err.name === 'DossierError' ? err.message : 'Claim map failed' }))
          .finally(() => stream.close());
      },
    },
    recomputeRoute('post'),
    recomputeRoute('patch'),
  ];
}
