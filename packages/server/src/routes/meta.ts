import { responses } from '@dossier/core';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** Health checks and the OpenAPI document, declared like every other route so the document lists them too. */
export function metaRoutes({ dossier }: RouteDeps, openapi: () => Record<string, unknown>): RouteDef[] {
  const health = (path: string) =>
    route({
      method: 'get',
      path,
      operationId: path === '/health' ? 'getHealthUnversioned' : 'getHealth',
      tag: 'meta',
      auth: 'none',
      summary: 'Liveness, and the embedding model of new collections',
      responses: { 200: { description: 'The server is up', schema: responses.health } },
      handle: async (_ctx, { reply }) => reply(200, { status: 'ok', defaultEmbeddingModel: dossier.defaultEmbeddingModel }),
    });
  return [
    route({
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'getOpenApiDocument',
      tag: 'meta',
      auth: 'none',
      summary: 'This OpenAPI 3.1 document',
      responses: { 200: { description: 'The OpenAPI document', schema: responses.openApiDocument } },
      handle: async (_ctx, { reply }) => reply(200, openapi()),
    }),
    health('/health'),
    health('/v1/health'),
  ];
}
