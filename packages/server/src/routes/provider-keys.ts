import { responses, schemas } from '@dossier/core';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

/** A project's own model provider keys (spec: Provider keys). The API key's project must be `:id`, else 404. */
export function providerKeyRoutes({ dossier }: RouteDeps): RouteDef[] {
  const keys = dossier.providerKeys;
  return [
    route({
      method: 'post',
      path: '/v1/projects/:id/provider-keys',
      operationId: 'createProviderKey',
      tag: 'provider-keys',
      auth: 'key',
      summary: 'Store a provider key (provider_a = Anthropic, provider_b = OpenAI; both spellings accepted); only its preview is returned',
      body: schemas.createProviderKeySchema,
      responses: { 201: { description: 'The stored key (a preview, never the key)', schema: responses.providerKey }, 401: 'Missing API key', 404: 'Not found' },
      handle: async (ctx, { caller, body, reply }) => reply(201, await keys.create(caller, ctx.params.id, body)),
    }),
    route({
      method: 'get',
      path: '/v1/projects/:id/provider-keys',
      operationId: 'listProviderKeys',
      tag: 'provider-keys',
      auth: 'key',
      summary: 'Provider keys of the project, newest first (previews only)',
      responses: { 200: { description: 'The keys', schema: responses.providerKey.array() }, 401: 'Missing API key', 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await keys.list(caller, ctx.params.id)),
    }),
    route({
      method: 'delete',
      path: '/v1/projects/:id/provider-keys/:keyId',
      operationId: 'deleteProviderKey',
      tag: 'provider-keys',
      auth: 'key',
      summary: 'Delete a provider key; research falls back to the managed key',
      responses: { 204: 'Deleted', 401: 'Missing API key', 404: 'Not found' },
      handle: async (ctx, { caller }) => {
        await keys.delete(caller, ctx.params.id, ctx.params.keyId);
        noContent(ctx);
      },
    }),
  ];
}
