import { type RouteDef, type RouteDeps, send } from './define.ts';

/** Health checks and the OpenAPI document, declared like every other route so the document lists them too. */
export function metaRoutes({ dossier }: RouteDeps, openapi: () => unknown): RouteDef[] {
  const health: RouteDef['handle'] = async (ctx) => send(ctx, 200, { status: 'ok', defaultEmbeddingModel: dossier.context.defaultEmbeddingModel });
  return [
    {
      method: 'get', path: '/v1/openapi.json', tag: 'meta', auth: 'none', summary: 'This OpenAPI 3.1 document',
      responses: { 200: 'OpenAPI document' }, handle: async (ctx) => send(ctx, 200, openapi()),
    },
    ...['/health', '/v1/health'].map((path): RouteDef => ({
      method: 'get', path, tag: 'meta', auth: 'none', summary: 'Liveness, and the embedding model of new collections',
      responses: { 200: '{status, defaultEmbeddingModel}' }, handle: health,
    })),
  ];
}
