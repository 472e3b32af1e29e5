import { responses, schemas } from '@dossier/core';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

const BASE = '/v1/orgs/:orgId/projects/:projectId/webhooks';
const DENIED = { 401: 'Missing or invalid JWT / API key', 404: 'Org, project or endpoint not found (or not yours)' };
/** Writes: an org admin or the project's live key (issue 33: members read). */
const WRITE_DENIED = { ...DENIED, 403: 'Needs the admin role in the org (members list endpoints and deliveries)' };

/**
 * Webhook endpoints and their delivery log (spec: Events and webhooks). A JWT of the org (members read, admins
 * create, change, retry and delete) or the project's live API key. Update is PATCH (the spec says "see note"): only
 * the fields sent change.
 */
export function webhookRoutes({ dossier }: RouteDeps): RouteDef[] {
  const hooks = dossier.webhooks;
  return [
    route({
      method: 'get',
      path: BASE,
      operationId: 'listWebhooks',
      tag: 'webhooks',
      auth: 'jwt-or-key',
      role: 'member',
      summary: 'Webhook endpoints of the project, oldest first (never their secrets)',
      responses: { 200: { description: 'The endpoints', schema: responses.webhookEndpoint.array() }, ...DENIED },
      handle: async (ctx, { caller, reply }) => reply(200, await hooks.list(caller, ctx.params.orgId, ctx.params.projectId)),
    }),
    route({
      method: 'post',
      path: BASE,
      operationId: 'createWebhook',
      tag: 'webhooks',
      auth: 'jwt-or-key',
      role: 'admin',
      summary: 'Create an endpoint (admin or the live key); the response carries its 64-hex signing `secret`, shown only this once',
      body: schemas.createWebhookSchema,
      responses: {
        201: { description: 'The endpoint with its signing secret (shown only here)', schema: responses.webhookEndpoint },
        400: 'Invalid input (e.g. not an HTTPS URL)',
        ...WRITE_DENIED,
      },
      handle: async (ctx, { caller, body, reply }) => reply(201, await hooks.create(caller, ctx.params.orgId, ctx.params.projectId, body)),
    }),
    route({
      method: 'patch',
      path: `${BASE}/:endpointId`,
      operationId: 'updateWebhook',
      tag: 'webhooks',
      auth: 'jwt-or-key',
      role: 'admin',
      summary:
        'Update any of url, events, enabled, receiveTestEvents, description (admin or the live key; PATCH: fields not sent keep their value); returns the endpoint without secret',
      body: schemas.updateWebhookSchema,
      responses: { 200: { description: 'The endpoint', schema: responses.webhookEndpoint }, 400: 'Invalid input', ...WRITE_DENIED },
      handle: async (ctx, { caller, body, reply }) =>
        reply(200, await hooks.update(caller, ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId, body)),
    }),
    route({
      method: 'delete',
      path: `${BASE}/:endpointId`,
      operationId: 'deleteWebhook',
      tag: 'webhooks',
      auth: 'jwt-or-key',
      role: 'admin',
      summary: 'Delete the endpoint and its delivery history (admin or the live key)',
      responses: { 204: 'Deleted', ...WRITE_DENIED },
      handle: async (ctx, { caller }) => {
        await hooks.delete(caller, ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId);
        noContent(ctx);
      },
    }),
    route({
      method: 'get',
      path: `${BASE}/:endpointId/deliveries`,
      operationId: 'listWebhookDeliveries',
      tag: 'webhooks',
      auth: 'jwt-or-key',
      role: 'member',
      summary: 'Deliveries of the endpoint, newest first (limit ≤ 100, default 50), each with its attemptLog',
      query: schemas.webhookDeliveriesQuerySchema,
      responses: { 200: { description: 'The deliveries', schema: responses.webhookDelivery.array() }, 400: 'Invalid limit', ...DENIED },
      handle: async (ctx, { caller, query, reply }) =>
        reply(200, await hooks.deliveries(caller, ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId, query)),
    }),
    route({
      method: 'post',
      path: `${BASE}/:endpointId/deliveries/:id/retry`,
      operationId: 'retryWebhookDelivery',
      tag: 'webhooks',
      auth: 'jwt-or-key',
      role: 'admin',
      summary: 'Re-run the delivery from scratch (admin or the live key): pending, attempts reset to 0, due now (earlier attempts stay in attemptLog)',
      responses: { 202: { description: 'The delivery as reset (status pending, attempts 0)', schema: responses.webhookDelivery }, ...WRITE_DENIED },
      handle: async (ctx, { caller, reply }) =>
        reply(202, await hooks.retry(caller, ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId, ctx.params.id)),
    }),
    route({
      method: 'post',
      path: `${BASE}/:endpointId/test`,
      operationId: 'sendWebhookTestEvent',
      tag: 'webhooks',
      auth: 'jwt-or-key',
      role: 'admin',
      summary:
        'Send a signed `webhook.test` event to the endpoint now (admin or the live key), whatever it subscribes to and even while disabled; answers with the delivery as recorded in its log once the receiver answered (status success, or failed: a test is not retried)',
      responses: {
        200: { description: "The test delivery with the receiver's answer (status, responseStatus, responseBody)", schema: responses.webhookDelivery },
        ...WRITE_DENIED,
      },
      handle: async (ctx, { caller, reply }) => reply(200, await hooks.sendTest(caller, ctx.params.orgId, ctx.params.projectId, ctx.params.endpointId)),
    }),
  ];
}
