import type { EventType, ServiceEvent } from '../events/catalogue.ts';
import type { DocumentPatch } from './metadata-store.ts';
import type { DocumentRecord, Env } from '../domain/types.ts';
import type { WEBHOOK_DELIVERY_STATUSES } from '../vocabulary.ts';

/** A project's webhook endpoint as stored (the signing secret only encrypted). */
export interface WebhookEndpointRecord {
  id: string;
  projectId: string;
  url: string;
  /** Subscribed types; empty means every type. */
  events: EventType[];
  enabled: boolean;
  /** Whether events of the test sandbox are delivered too (default false: live events only). */
  receiveTestEvents: boolean;
  description: string | null;
  /** The 64-hex signing secret sealed with the SecretBox (AES-256-GCM). */
  secretEncrypted: string;
  createdAt: string;
  updatedAt: string;
}

export type WebhookEndpointPatch = Partial<Pick<WebhookEndpointRecord, 'url' | 'events' | 'enabled' | 'receiveTestEvents' | 'description' | 'updatedAt'>>;

export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** One event for one endpoint (the outbox row): its id is the body's `id` and X-Service-Event-Id. */
export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string;
  projectId: string;
  eventType: EventType;
  /** The sandbox the event came from (the body's `env`). */
  env: Env;
  /** Unix seconds of the event (the body's `created`). */
  created: number;
  data: Record<string, unknown>;
  status: WebhookDeliveryStatus;
  /** Attempts since creation or the last manual retry. */
  attempts: number;
  lastAttemptAt: string | null;
  responseStatus: number | null;
  responseBody: string | null;
  /** When the next attempt is due while pending. */
  nextAttemptAt: string | null;
  createdAt: string;
}

/** The log line of one delivery attempt. */
export interface WebhookAttemptRecord {
  deliveryId: string;
  /** 1-based, counted from creation or the last manual retry. */
  attempt: number;
  at: string;
  /** Receiver's status, or null when no response came (refused address, timeout, connection error). */
  responseStatus: number | null;
  /** First 1,024 bytes of the response body, or the reason no response came. */
  responseBody: string | null;
  durationMs: number;
}

/** What an attempt changed on its delivery. */
export type WebhookAttemptOutcome = Pick<WebhookDeliveryRecord, 'status' | 'nextAttemptAt'> & WebhookAttemptRecord;

/**
 * Webhook endpoints, their delivery outbox and attempt log (part of the MetadataStore).
 * Events are written in the transaction of the state change that causes them: one delivery row per enabled
 * endpoint of the event's project subscribed to its type (and, for a test-sandbox event, receiving test events),
 * status pending, due now.
 */
export interface WebhookStore {
  /** Apply a document patch and record its events, in one transaction (updatedAt is set by the store). */
  updateDocumentWithEvents(id: string, patch: DocumentPatch, events: ServiceEvent[]): Promise<DocumentRecord>;
  /** Record events on their own (in one transaction). */
  recordEvents(events: ServiceEvent[]): Promise<void>;

  insertWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  getWebhookEndpoint(id: string): Promise<WebhookEndpointRecord | null>;
  /** Endpoints of a project, oldest first. */
  listWebhookEndpoints(projectId: string): Promise<WebhookEndpointRecord[]>;
  updateWebhookEndpoint(id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRecord>;
  /** Delete an endpoint with its deliveries and their attempt log. */
  deleteWebhookEndpoint(id: string): Promise<void>;

  /** Store one delivery as given (a requested test event); one without nextAttemptAt is never swept. */
  insertWebhookDelivery(delivery: WebhookDeliveryRecord): Promise<void>;
  getWebhookDelivery(id: string): Promise<WebhookDeliveryRecord | null>;
  /** An endpoint's newest `limit` deliveries, newest first (ties by id, descending). */
  listWebhookDeliveries(endpointId: string, limit: number): Promise<WebhookDeliveryRecord[]>;
  /**
   * Pending deliveries due at `now` (ISO) that need a job, oldest due first: none was queued for their next
   * attempt, or the last one was queued before `staleBefore` (it may be lost; a repeat is deduplicated).
   */
  listDueWebhookDeliveries(now: string, staleBefore: string, limit: number): Promise<WebhookDeliveryRecord[]>;
  /** Note that a job was queued (now) for each delivery's attempt number `attempt`. */
  markWebhookDeliveriesQueued(queued: { id: string; attempt: number }[]): Promise<void>;
  /**
   * Record an attempt and its outcome, only when the delivery is still pending with `attempt - 1` attempts
   * (so a duplicate job cannot count twice); false when it was not applied.
   */
  recordWebhookAttempt(outcome: WebhookAttemptOutcome): Promise<boolean>;
  /** Mark a delivery failed without an attempt (its endpoint is disabled). */
  failWebhookDelivery(id: string, reason: string): Promise<void>;
  /** Manual retry: pending, due now, attempts 0 (the attempt log is kept). */
  resetWebhookDelivery(id: string, now: string): Promise<WebhookDeliveryRecord>;
  /** The attempt log of deliveries, oldest first. */
  listWebhookAttempts(deliveryIds: string[]): Promise<WebhookAttemptRecord[]>;
}
