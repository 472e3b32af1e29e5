import { schemas } from '@dossier/core';
import { apiAccess } from '../http/auth.ts';
import { type RouteDef, type RouteDeps, send } from './define.ts';

/** Query, section scan and section reads. */
export function retrievalRoutes({ dossier }: RouteDeps): RouteDef[] {
  const s = dossier.search;
  return [
    {
      method: 'post', path: '/v1/collections/:id/query', tag: 'retrieval', auth: 'key-or-public',
      summary: 'Hybrid search: BM25 and vector candidates fused by RRF, then reranked; header X-Dossier-Reranker names the reranker that ran',
      body: schemas.querySchema, responses: { 200: 'array of {score, chunk, section, document}', 400: 'Invalid input' },
      handle: async (ctx, { body }) => {
        const { results, reranker } = await s.query(apiAccess(ctx), ctx.params.id, body as schemas.QueryInput);
        ctx.set('X-Dossier-Reranker', reranker);
        send(ctx, 200, results);
      },
    },
    {
      method: 'post', path: '/v1/collections/:id/sections/scan', tag: 'retrieval', auth: 'key-or-public',
      summary: 'Full-text search over section titles and summaries', body: schemas.scanSchema,
      responses: { 200: '{results: [{score, section, document}]}', 400: 'Invalid input' },
      handle: async (ctx, { body }) => send(ctx, 200, await s.scan(apiAccess(ctx), ctx.params.id, body as schemas.ScanInput)),
    },
    {
      method: 'get', path: '/v1/sections/:id', tag: 'retrieval', auth: 'key-or-public', summary: 'A section with its Markdown content',
      responses: { 200: 'Section with content', 404: 'Not found' },
      handle: async (ctx) => send(ctx, 200, await s.section(apiAccess(ctx), ctx.params.id)),
    },
    {
      method: 'get', path: '/v1/sections/:id/chunks', tag: 'retrieval', auth: 'key-or-public', summary: 'Chunks of a section in order',
      responses: { 200: 'array of Chunk', 404: 'Not found' },
      handle: async (ctx) => send(ctx, 200, await s.sectionChunks(apiAccess(ctx), ctx.params.id)),
    },
  ];
}
