import { responses, schemas } from '@dossier/core';
import { requireSessionOrKey } from '../http/auth.ts';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

const BASE = '/v1/orgs/:orgId/projects/:projectId/webhooks';
const DENIED = { 401: 'Missing or invalid JWT / API key', 404: 'Org, project or endpoint not found (or not yours)' };

/**
 * Webhook endpoints and their delivery log (spec: Events and webhooks). A JWT of an org member or the
 * project's API key. Update is PATCH (the spec says "see note"): only the fields sent change.
 */
export function webhookRoutes({ dossier }: RouteDeps): RouteDef[] {
  const hooks = dossier.webhooks;
  return [
    route({
      method: 'get', path: BASE, operationId: 'listWebhooks', tag: 'webhooks', auth: 'jwt-or-key',
      summary: 'Webhook endpoints of the project, oldest first (never their secrets)',
      responses: { 200: { description: 'The endpoints', schema: responses.webhookEndpoint.array() }, ...DENIED },
      handle: async (ctx, { reply }) => reply(200, await hooks.list(requireSessionOrKey(ctx), ctx.params.orgId, ctx.params.projectId)),
    }),
    route({
      method: 'post', path: BASE, operationId: 'createWebhook', tag: 'webhooks', auth: 'jwt-or-key',
      summary: 'Create an endpoint; the response carries its 64-hex signing `secret`, shown only this once',
      body: schemas.createWebhookSchema,
      responses: { 201: { description: 'The endpoint with its signing secret (shown only here)', schema: responses.webhookEndpoint }, 400: 'Invalid input (e.g. not an HTTPS URL)', ...DENIED },
      handle: async (ctx, { body, reply }) =>
        reply(201, await hooks.create(requireSessionOrKey(ctx), ctx.params.orgId, ctx.params.projectId, body)),
    }),
    route({
      method: 'patch', path: `${BASE}/:endpointId`, operationId: 'updateWebhook', tag: 'webhooks', auth: 'jwt-or-key',
      summary: 'Update any of url, events, enabled, receiveTestEvents, description (PATCH: fields not sent keep their value); returns the endpoint without secret',
      body: schemas.updateWebhookSchema,
      responses: { 200: { description: 'The endpoint', schema: responses.webhookEndpoint }, 400: 'Invalid input', ...DENIED },
      handle: async (ctx, { body, reply }) =>
        reply(200, await hooks.update(requireSessionOrKey(ctx), ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId, body)),
    }),
    route({
      method: 'delete', path: `${BASE}/:endpointId`, operationId: 'deleteWebhook', tag: 'webhooks', auth: 'jwt-or-key',
      summary: 'Delete the endpoint and its delivery history',
      responses: { 204: 'Deleted', ...DENIED },
      handle: async (ctx) => {
        await hooks.delete(requireSessionOrKey(ctx), ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId);
        noContent(ctx);
      },
    }),
    route({
      method: 'get', path: `${BASE}/:endpointId/deliveries`, operationId: 'listWebhookDeliveries', tag: 'webhooks', auth: 'jwt-or-key',
      summary: 'Deliveries of the endpoint, newest first (limit ≤ 100, default 50), each with its attemptLog',
      query: schemas.webhookDeliveriesQuerySchema,
      responses: { 200: { description: 'The deliveries', schema: responses.webhookDelivery.array() }, 400: 'Invalid limit', ...DENIED },
      handle: async (ctx, { query, reply }) =>
        reply(200, await hooks.deliveries(requireSessionOrKey(ctx), ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId, query)),
    }),
    route({
      method: 'post', path: `${BASE}/:endpointId/deliveries/:id/retry`, operationId: 'retryWebhookDelivery', tag: 'webhooks', auth: 'jwt-or-key',
      summary: 'Re-run the delivery from scratch: pending, attempts reset to 0, due now (earlier attempts stay in attemptLog)',
      responses: { 202: { description: 'The delivery as reset (status pending, attempts 0)', schema: responses.webhookDelivery }, ...DENIED },
      handle: async (ctx, { reply }) =>
        reply(202, await hooks.retry(requireSessionOrKey(ctx), ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId, ctx.params.id)),
    }),
  ];
}
