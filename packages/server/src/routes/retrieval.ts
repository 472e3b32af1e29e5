import { responses, schemas } from '@dossier/core';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** Query, section scan and section reads. */
export function retrievalRoutes({ dossier }: RouteDeps): RouteDef[] {
  const s = dossier.search;
  return [
    route({
      method: 'post',
      path: '/v1/collections/:id/query',
      operationId: 'queryCollection',
      tag: 'retrieval',
      auth: 'key-or-public',
      summary: 'Hybrid search: BM25 and vector candidates fused by RRF, then reranked; header X-Dossier-Reranker names the reranker that ran',
      body: schemas.querySchema,
      responses: { 200: { description: 'The best chunks, best first', schema: responses.queryHit.array() }, 404: 'Not found' },
      handle: async (ctx, { caller, body, reply }) => {
        const { results, reranker } = await s.query(caller, ctx.params.id, body);
        ctx.set('X-Dossier-Reranker', reranker);
        reply(200, results);
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/sections/scan',
      operationId: 'scanSections',
      tag: 'retrieval',
      auth: 'key-or-public',
      summary: 'Full-text search over section titles and summaries',
      body: schemas.scanSchema,
      responses: { 200: { description: 'Matching sections, best first', schema: responses.scanResults }, 404: 'Not found' },
      handle: async (ctx, { caller, body, reply }) => reply(200, await s.scan(caller, ctx.params.id, body)),
    }),
    route({
      method: 'get',
      path: '/v1/sections/:id',
      operationId: 'getSection',
      tag: 'retrieval',
      auth: 'key-or-public',
      summary: 'A section with its Markdown content',
      responses: { 200: { description: 'The section with its Markdown', schema: responses.sectionWithContent }, 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await s.section(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/sections/:id/chunks',
      operationId: 'listSectionChunks',
      tag: 'retrieval',
      auth: 'key-or-public',
      summary: 'Chunks of a section in order',
      responses: { 200: { description: 'The chunks in order', schema: responses.chunk.array() }, 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await s.sectionChunks(caller, ctx.params.id)),
    }),
  ];
}
