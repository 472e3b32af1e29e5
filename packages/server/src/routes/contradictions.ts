import { schemas } from '@dossier/core';
import { requireApiAccess } from '../http/auth.ts';
import { noContent, type RouteDef, type RouteDeps, send } from './define.ts';

const keyErrors = { 401: 'API key required', 404: 'Not found' };

/** Contradiction runs and review (spec: Contradictions). */
export function contradictionRoutes({ dossier }: RouteDeps): RouteDef[] {
  const claims = dossier.claims;
  const dismiss: RouteDef['handle'] = async (ctx) =>
    send(ctx, 200, await claims.dismissContradiction(requireApiAccess(ctx), ctx.params.id, ctx.params.contradictionId));
  const dismissRoute = (method: 'patch' | 'post'): RouteDef => ({
    method, path: '/v1/collections/:id/contradictions/:contradictionId', tag: 'contradictions', auth: 'key',
    body: schemas.updateContradictionSchema, handle: dismiss,
    summary: 'Dismiss a contradiction: body {status: "dismissed"} (PATCH; POST is accepted too)',
    responses: { 200: 'Contradiction', 400: 'Only status "dismissed" is accepted', ...keyErrors },
  });
  return [
    {
      method: 'get', path: '/v1/collections/:id/contradictions/files', tag: 'contradictions', auth: 'key',
      query: schemas.contradictionFilesQuerySchema,
      summary: 'Documents by number of contradictions touching them (count descending, then filename ascending)',
      responses: { 200: '{files: [{documentId, filename, contradictionCount}]}', 400: 'Invalid filter', ...keyErrors },
      handle: async (ctx, { query }) =>
        send(ctx, 200, await claims.contradictionFiles(requireApiAccess(ctx), ctx.params.id, query as schemas.ContradictionFilesQuery)),
    },
    {
      method: 'post', path: '/v1/collections/:id/contradictions/detect', tag: 'contradictions', auth: 'key',
      summary: 'Start a contradiction run over the claims of ready, canonical documents (returns the run in flight, if any)',
      responses: { 200: '{runId, status, enqueuedAt}', 400: 'No model provider configured', ...keyErrors },
      handle: async (ctx) => send(ctx, 200, await claims.detectContradictions(requireApiAccess(ctx), ctx.params.id)),
    },
    {
      method: 'get', path: '/v1/collections/:id/contradictions/runs/latest', tag: 'contradictions', auth: 'key',
      summary: 'The newest contradiction run', responses: { 200: 'ContradictionRun', ...keyErrors },
      handle: async (ctx) => send(ctx, 200, await claims.latestContradictionRun(requireApiAccess(ctx), ctx.params.id)),
    },
    {
      method: 'get', path: '/v1/collections/:id/contradictions', tag: 'contradictions', auth: 'key',
      query: schemas.contradictionListQuerySchema, summary: 'Contradictions of a collection, newest first',
      responses: { 200: '{total, items: array of Contradiction}', 400: 'Invalid filter', ...keyErrors },
      handle: async (ctx, { query }) =>
        send(ctx, 200, await claims.listContradictions(requireApiAccess(ctx), ctx.params.id, query as schemas.ContradictionListQuery)),
    },
    dismissRoute('patch'),
    dismissRoute('post'),
    {
      method: 'post', path: '/v1/collections/:id/contradictions/:contradictionId/apply-instruction', tag: 'contradictions', auth: 'key',
      body: schemas.applyInstructionSchema,
      summary: 'Append the instruction (or the suggested one) to the collection instructions and mark the contradiction applied',
      responses: { 204: 'Applied', 400: 'No instruction, or the instructions would exceed 4,000 characters', ...keyErrors },
      handle: async (ctx, { body }) => {
        const { instruction } = body as { instruction?: string };
        await claims.applyInstruction(requireApiAccess(ctx), ctx.params.id, ctx.params.contradictionId, instruction);
        noContent(ctx);
      },
    },
  ];
}
