/**
 * The webhooks group of the public API (`dossier.webhooks`): a project's webhook endpoints and their deliveries.
 * The caller is an org member's session (members list, admins manage) or the project's live key (`WebhookCaller`).
 * Projects of other orgs answer `not_found`.
 */
import type { WebhookCaller, WebhookDeliveryView, WebhookEndpointView } from '../webhooks/service.ts';

/** `dossier.webhooks`: create, list, update and delete endpoints; read, retry and test their deliveries. */
export interface WebhookService {
  /**
   * The project's endpoints (without their secrets).
   * @throws {DossierError} `not_found` (org or project).
   */
  list(caller: WebhookCaller, orgId: string, projectId: string): Promise<WebhookEndpointView[]>;
  /**
   * Create an endpoint (`{ url, events }`); the response carries the signing secret, which is never shown again.
   * @throws {DossierError} `not_found`, `forbidden` (a member, not an admin), `invalid_input` (not HTTPS, a URL with
   *   credentials, or one deliveries could never reach).
   * @example
   * const { secret } = await dossier.webhooks.create({ session: claims }, orgId, projectId, { url: 'https://example.com/hook', events: ['document.ready'] });
   */
  create(caller: WebhookCaller, orgId: string, projectId: string, raw: unknown): Promise<WebhookEndpointView & { secret: string }>;
  /**
   * Change an endpoint's URL, events or enabled state.
   * @throws {DossierError} `not_found` (project or endpoint), `forbidden`, `invalid_input`.
   */
  update(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string, raw: unknown): Promise<WebhookEndpointView>;
  /**
   * Delete an endpoint and its deliveries.
   * @throws {DossierError} `not_found`, `forbidden`.
   */
  delete(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string): Promise<void>;
  /**
   * The endpoint's newest deliveries (limit ≤ 100, default 50), newest first, each with its attempt log.
   * @throws {DossierError} `not_found`, `invalid_input` (bad limit).
   */
  deliveries(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string, rawQuery?: unknown): Promise<WebhookDeliveryView[]>;
  /**
   * Manual retry: the delivery starts over (pending, 0 attempts, due now); its earlier attempts stay in the log.
   * @throws {DossierError} `not_found` (endpoint or delivery), `forbidden`.
   */
  retry(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView>;
  /**
   * Send a signed `webhook.test` event to the endpoint now (admin or the live key) and answer with its delivery
   * as recorded: success with the receiver's 2xx, or failed with its status and body (no retries).
   * @throws {DossierError} `not_found`, `forbidden`.
   */
  sendTest(caller: WebhookCaller, orgId: string, projectId: string, endpointId: string): Promise<WebhookDeliveryView>;
}
