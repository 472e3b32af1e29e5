import { responses } from '@dossier/core';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/**
 * /v1/collections/:id/recompute/{summaries,captions}: the spec leaves the method open ("see note"), so both POST
 * and PATCH are served. 200 {enqueued}: 0 when the collection flag is off or the project has no model provider
 * (the reset still happens).
 */
export function recomputeRoutes({ dossier }: RouteDeps): RouteDef[] {
  const c = dossier.collections;
  const recompute = (method: 'post' | 'patch', what: 'summaries' | 'captions') =>
    route({
      method,
      path: `/v1/collections/:id/recompute/${what}`,
      tag: 'collections',
      auth: 'key',
      operationId: `recompute${what === 'summaries' ? 'Summaries' : 'Captions'}${method === 'patch' ? 'ByPatch' : ''}`,
      responses: { 200: { description: 'How many documents were re-enqueued', schema: responses.enqueued }, 401: 'Key required', 404: 'Not found' },
      summary:
        what === 'summaries'
          ? 'Reset AI section summaries to extractive and re-enqueue summarization of every ready document'
          : 'Delete caption chunks, reset image and table captions, and re-enqueue captioning of every ready document',
      handle: async (ctx, { caller: access, reply }) => {
        reply(200, await (what === 'summaries' ? c.recomputeSummaries(access, ctx.params.id) : c.recomputeCaptions(access, ctx.params.id)));
      },
    });
  return [recompute('post', 'summaries'), recompute('patch', 'summaries'), recompute('post', 'captions'), recompute('patch', 'captions')];
}
