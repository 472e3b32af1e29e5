import { responses, schemas } from '@dossier/core';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

const keyErrors = { 401: 'API key required', 404: 'Not found' };

/** Contradiction runs and review (spec: Contradictions). */
export function contradictionRoutes({ dossier }: RouteDeps): RouteDef[] {
  const claims = dossier.claims;
  const dismiss = (method: 'patch' | 'post') =>
    route({
      method,
      path: '/v1/collections/:id/contradictions/:contradictionId',
      tag: 'contradictions',
      auth: 'key',
      operationId: method === 'patch' ? 'dismissContradiction' : 'dismissContradictionByPost',
      body: schemas.updateContradictionSchema,
      summary: 'Dismiss a contradiction: body {status: "dismissed"} (PATCH; POST is accepted too)',
      responses: {
        200: { description: 'The dismissed contradiction', schema: responses.contradiction },
        400: 'Only status "dismissed" is accepted',
        ...keyErrors,
      },
      handle: async (ctx, { caller, reply }) => reply(200, await claims.dismissContradiction(caller, ctx.params.id, ctx.params.contradictionId)),
    });
  return [
    route({
      method: 'get',
      path: '/v1/collections/:id/contradictions/files',
      operationId: 'listContradictionFiles',
      tag: 'contradictions',
      auth: 'key',
      query: schemas.contradictionFilesQuerySchema,
      summary: 'Documents by number of contradictions touching them (count descending, then filename ascending)',
      responses: { 200: { description: 'The documents and their counts', schema: responses.contradictionFiles }, 400: 'Invalid filter', ...keyErrors },
      handle: async (ctx, { caller, query, reply }) => reply(200, await claims.contradictionFiles(caller, ctx.params.id, query)),
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/contradictions/detect',
      operationId: 'detectContradictions',
      tag: 'contradictions',
      auth: 'key',
      summary: 'Start a contradiction run over the claims of ready, canonical documents (returns the run in flight, if any)',
      responses: {
        200: { description: 'The run started (or in flight)', schema: responses.contradictionRunStarted },
        400: 'No model provider configured',
        ...keyErrors,
      },
      handle: async (ctx, { caller, reply }) => reply(200, await claims.detectContradictions(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/contradictions/runs/latest',
      operationId: 'getLatestContradictionRun',
      tag: 'contradictions',
      auth: 'key',
      summary: 'The newest contradiction run',
      responses: { 200: { description: 'The run', schema: responses.contradictionRun }, ...keyErrors },
      handle: async (ctx, { caller, reply }) => reply(200, await claims.latestContradictionRun(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/contradictions',
      operationId: 'listContradictions',
      tag: 'contradictions',
      auth: 'key',
      query: schemas.contradictionListQuerySchema,
      summary: 'Contradictions of a collection, newest first',
      responses: { 200: { description: 'A page of contradictions and the total', schema: responses.contradictionList }, 400: 'Invalid filter', ...keyErrors },
      handle: async (ctx, { caller, query, reply }) => reply(200, await claims.listContradictions(caller, ctx.params.id, query)),
    }),
    dismiss('patch'),
    dismiss('post'),
    route({
      method: 'post',
      path: '/v1/collections/:id/contradictions/:contradictionId/apply-instruction',
      operationId: 'applyContradictionInstruction',
      tag: 'contradictions',
      auth: 'key',
      body: schemas.applyInstructionSchema,
      summary: 'Append the instruction (or the suggested one) to the collection instructions and mark the contradiction applied',
      responses: { 204: 'Applied', 400: 'No instruction, or the instructions would exceed 4,000 characters', ...keyErrors },
      handle: async (ctx, { caller, body }) => {
        await claims.applyInstruction(caller, ctx.params.id, ctx.params.contradictionId, body.instruction);
        noContent(ctx);
      },
    }),
  ];
}
