import type { AccountStore } from '../ports/account-store.ts';
import type { WebhookStore } from '../ports/webhook-store.ts';
import type { Access } from '../access.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { OrgRole } from '../auth/roles.ts';
import type { ContextPart } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Project } from '../domain/types.ts';
import type { WebhookAttemptRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from '../ports/webhook-store.ts';
import * as schemas from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import type { WebhookSender } from '../ports/webhook-sender.ts';
import { sendTestEvent, webhookBody } from './delivery.ts';
import { newSigningSecret } from './signing.ts';
import type { WebhookService } from '../api/webhooks.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/**
 * Who manages webhooks: a signed-in member of the org (JWT; members list endpoints and deliveries, admins create,
 * change, retry and delete) or the project's own live API key.
 */
export type WebhookCaller = { session: SessionClaims } | { access: NonNullable<Access> };

/** WebhookEndpoint as the API shows it (spec); `secret` only in the creation response. */
export type WebhookEndpointView = z.output<typeof responses.webhookEndpoint>;

/** WebhookDelivery as the API shows it (spec), plus `attemptLog`: every attempt's time, status and response start. */
export type WebhookDeliveryView = z.output<typeof responses.webhookDelivery>;

export const DEFAULT_DELIVERY_LIMIT = 50;

/** The `message` of a `webhook.test` event. */
export const TEST_EVENT_MESSAGE = 'A test event sent on request from Dossier; nothing changed in the project.';

const endpointView = (e: WebhookEndpointRecord): WebhookEndpointView => ({
  id: e.id,
  url: e.url,
  events: e.events,
  enabled: e.enabled,
  receiveTestEvents: e.receiveTestEvents,
  ...(e.description !== null ? { description: e.description } : {}),
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

function deliveryView(d: WebhookDeliveryRecord, log: WebhookAttemptRecord[]): WebhookDeliveryView {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventType: d.eventType,
    payload: webhookBody(d),
    status: d.status,
    attempts: d.attempts,
    ...(d.lastAttemptAt !== null ? { lastAttemptAt: d.lastAttemptAt } : {}),
    ...(d.responseStatus !== null ? { responseStatus: d.responseStatus } : {}),
    ...(d.responseBody !== null ? { responseBody: d.responseBody } : {}),
    ...(d.status === 'pending' && d.nextAttemptAt !== null ? { nextAttemptAt: d.nextAttemptAt } : {}),
    createdAt: d.createdAt,
    attemptLog: log.filter((a) => a.deliveryId === d.id).map(({ deliveryId: _id, ...rest }) => rest),
  };
}

/** The URL when a receiver may have it: HTTPS, or plain HTTP to a loopback host when the operator allows it. */
export function checkWebhookUrl(raw: string, allowHttpLoopback: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DossierError('invalid_input', 'url: must be an absolute HTTPS URL');
  }
  if (url.username || url.password) throw new DossierError('invalid_input', 'url: must not carry credentials');
  const loopbackHost = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && allowHttpLoopback && loopbackHost)) return url.toString();
  if (url.protocol === 'http:' && loopbackHost) {
    throw new DossierError(
      'invalid_input',
      'url: must be an HTTPS URL (a plain-HTTP receiver on loopback is allowed for local development when the server runs with DOSSIER_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true, --webhooks-allow-http-loopback)',
    );
  }
  throw new DossierError('invalid_input', 'url: must be an HTTPS URL');
}

/** Webhook endpoint management and the delivery log (spec: Events and webhooks). */
export function webhookService(
  ctx: ContextPart<'secrets', AccountStore & WebhookStore>,
  opts: { allowHttpLoopback: boolean; kick: () => Promise<void>; sender: WebhookSender },
): WebhookService {
  /** The URL when a receiver may have it and the delivery policy could ever reach it (400 otherwise). */
  async function deliverableUrl(raw: string): Promise<string> {
    const url = checkWebhookUrl(raw, opts.allowHttpLoopback);
    const refused = opts.sender.checkUrl ? await opts.sender.checkUrl(url) : null;
    if (refused) throw new DossierError('invalid_input', `url: webhooks can never be delivered there (${refused})`);
    return url;
  }

  /**
   * The project when the caller may act on its endpoints with the role `needed` (issue 33: writes need an admin);
   * 404 for a caller outside it (nothing is revealed about other tenants), 403 for a member who would write.
   */
  async function requireProject(caller: WebhookCaller, orgId: string, projectId: string, needed: OrgRole): Promise<Project> {
    const project = isUuid(projectId) && isUuid(orgId) ? await ctx.store.getProject(projectId) : null;
    if (!project || project.orgId !== orgId) throw notFound('Project');
    const role = 'session' in caller ? await ctx.store.getMembershipRole(orgId, caller.session.accountId) : null;
    const allowed = 'session' in caller ? role !== null : caller.access.projectId === project.id && caller.access.env === 'live'; // endpoints get live events: a test key cannot manage them
    if (!allowed) throw notFound('Project');
    if (role === 'member' && needed === 'admin')
      throw new DossierError('forbidden', 'Managing webhook endpoints needs the admin role in the org (members list endpoints and deliveries)');
    return project;
  }

  async function requireEndpoint(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string, needed: OrgRole): Promise<WebhookEndpointRecord> {
    const project = await requireProject(caller, orgId, projectId, needed);
    const endpoint = isUuid(endpointId) ? await ctx.store.getWebhookEndpoint(endpointId) : null;
    if (!endpoint || endpoint.projectId !== project.id) throw notFound('Webhook endpoint');
    return endpoint;
  }

  return {
    async list(caller: WebhookCaller, orgId: string, projectId: string): Promise<WebhookEndpointView[]> {
      const project = await requireProject(caller, orgId, projectId, 'member');
      return (await ctx.store.listWebhookEndpoints(project.id)).map(endpointView);
    },
    /** Create an endpoint; the response carries the signing secret, which is never shown again. */
    async create(caller: WebhookCaller, orgId: string, projectId: string, raw: unknown): Promise<WebhookEndpointView & { secret: string }> {
      const input = schemas.parseInput(schemas.createWebhookSchema, raw);
      const project = await requireProject(caller, orgId, projectId, 'admin');
      const url = await deliverableUrl(input.url);
      const secret = newSigningSecret();
      const now = nowIso();
      const endpoint: WebhookEndpointRecord = {
        id: newId(),
        projectId: project.id,
        url,
        events: [...new Set(input.events ?? [])],
        enabled: true,
        receiveTestEvents: input.receiveTestEvents ?? false,
        description: input.description ?? null,
        secretEncrypted: ctx.secrets.encrypt(secret),
        createdAt: now,
        updatedAt: now,
      };
      await ctx.store.insertWebhookEndpoint(endpoint);
      return { ...endpointView(endpoint), secret };
    },
    async update(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string, raw: unknown): Promise<WebhookEndpointView> {
      const input = schemas.parseInput(schemas.updateWebhookSchema, raw);
      const endpoint = await requireEndpoint(caller, orgId, projectId, endpointId, 'admin');
      const url = input.url !== undefined ? await deliverableUrl(input.url) : undefined;
      const updated = await ctx.store.updateWebhookEndpoint(endpoint.id, {
        ...(url !== undefined ? { url } : {}),
        ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(input.receiveTestEvents !== undefined ? { receiveTestEvents: input.receiveTestEvents } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        updatedAt: nowIso(),
      });
      return endpointView(updated);
    },
    async delete(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string): Promise<void> {
      const endpoint = await requireEndpoint(caller, orgId, projectId, endpointId, 'admin');
      await ctx.store.deleteWebhookEndpoint(endpoint.id);
    },
    /** The endpoint's newest deliveries (limit ≤ 100, default 50), newest first, each with its attempt log. */
    async deliveries(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string, rawQuery: unknown = {}): Promise<WebhookDeliveryView[]> {
      const { limit } = schemas.parseInput(schemas.webhookDeliveriesQuerySchema, rawQuery);
      const endpoint = await requireEndpoint(caller, orgId, projectId, endpointId, 'member');
      const rows = await ctx.store.listWebhookDeliveries(endpoint.id, limit ?? DEFAULT_DELIVERY_LIMIT);
      const log = await ctx.store.listWebhookAttempts(rows.map((d) => d.id));
      return rows.map((d) => deliveryView(d, log));
    },
    /** Manual retry: the delivery starts over (pending, 0 attempts, due now); its earlier attempts stay in the log. */
    async retry(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
      const endpoint = await requireEndpoint(caller, orgId, projectId, endpointId, 'admin');
      const delivery = isUuid(deliveryId) ? await ctx.store.getWebhookDelivery(deliveryId) : null;
      if (!delivery || delivery.endpointId !== endpoint.id) throw notFound('Delivery');
      const reset = await ctx.store.resetWebhookDelivery(delivery.id, nowIso());
      await opts.kick();
      return deliveryView(reset, await ctx.store.listWebhookAttempts([reset.id]));
    },
    /**
     * Send a signed `webhook.test` event to the endpoint now (admin or the live key) and answer with its delivery
     * as recorded: success with the receiver's 2xx, or failed with its status and body (no retries).
     */
    async sendTest(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string): Promise<WebhookDeliveryView> {
      const endpoint = await requireEndpoint(caller, orgId, projectId, endpointId, 'admin');
      const delivery = await sendTestEvent(ctx, opts.sender, endpoint, TEST_EVENT_MESSAGE);
      return deliveryView(delivery, await ctx.store.listWebhookAttempts([delivery.id]));
    },
  };
}

export type { WebhookService };
