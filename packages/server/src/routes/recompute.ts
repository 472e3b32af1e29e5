import { requireApiAccess } from '../http/auth.ts';
import { type RouteDef, type RouteDeps, send } from './define.ts';

/**
 * /v1/collections/:id/recompute/{summaries,captions}: the spec leaves the method open ("see note"), so both POST
 * and PATCH are served. 200 {enqueued}: 0 when the collection flag is off or the project has no model provider
 * (the reset still happens).
 */
export function recomputeRoutes({ dossier }: RouteDeps): RouteDef[] {
  const c = dossier.collections;
  const summaries: RouteDef['handle'] = async (ctx) => send(ctx, 200, await c.recomputeSummaries(requireApiAccess(ctx), ctx.params.id));
  const captions: RouteDef['handle'] = async (ctx) => send(ctx, 200, await c.recomputeCaptions(requireApiAccess(ctx), ctx.params.id));
  const responses = { 200: '{enqueued: number}', 401: 'Key required', 404: 'Not found' };
  const route = (method: 'post' | 'patch', what: 'summaries' | 'captions'): RouteDef => ({
    method, path: `/v1/collections/:id/recompute/${what}`, tag: 'collections', auth: 'key', responses,
    summary: what === 'summaries'
      ? 'Reset AI section summaries to extractive and re-enqueue summarization of every ready document'
      : 'Delete caption chunks, reset image and table captions, and re-enqueue captioning of every ready document',
    handle: what === 'summaries' ? summaries : captions,
  });
  return [route('post', 'summaries'), route('patch', 'summaries'), route('post', 'captions'), route('patch', 'captions')];
}
