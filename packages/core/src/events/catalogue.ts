import type { DocumentEvent, DocumentRecord, DocumentStatus, Env } from '../domain/types.ts';
import type { Sandbox } from '../usage/quotas.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';
import { EVENT_TYPES } from '../vocabulary.ts';

/**
 * The one catalogue of service events. Webhooks deliver these types; the SSE document stream publishes the
 * DocumentEvent built here for every status change. Each type's `data` is documented in docs/webhooks.md.
 */
export { EVENT_TYPES };

export type EventType = (typeof EVENT_TYPES)[number];

/** The `data` object of each event type. Ids are UUID strings. */
export interface EventData {
  /** A document finished processing and is queryable. */
  'document.ready': { documentId: string; collectionId: string; projectId: string };
  /**
   * A document's content was replaced (same id, next version: issue 43) and the new version is ready and searchable.
   * Sent beside `document.ready`; `sourcePath` is where it came from (null when uploaded without one).
   */
  'document.updated': { documentId: string; collectionId: string; projectId: string; version: number; sourcePath: string | null };
  /** Ingestion failed at some stage; `error` says why. */
  'document.error': { documentId: string; collectionId: string; projectId: string; error: string };
  /** A research run finished and its session was saved. */
  'research.completed': { sessionId: string; collectionId: string; projectId: string; depth: string; sourceCount: number };
  /** A near-duplicate detection run of a collection ended (`status` completed or failed). */
  'duplicates.completed': {
    runId: string;
    collectionId: string;
    projectId: string;
    status: 'completed' | 'failed';
    duplicatesDetected: number | null;
    duplicateGroupsCreated: number | null;
    error: string | null;
  };
  /** A contradiction detection run of a collection ended (`status` completed or failed). */
  'contradictions.completed': {
    runId: string;
    collectionId: string;
    projectId: string;
    status: 'completed' | 'failed';
    contradictionsFound: number | null;
    error: string | null;
  };
  /** A sync of a server-side source ended (issue 43): what it added, replaced, deleted (softly), left and failed. */
  'source.run.completed': {
    runId: string;
    sourceId: string;
    collectionId: string;
    projectId: string;
    status: 'completed' | 'failed';
    added: number;
    updated: number;
    deleted: number;
    unchanged: number;
    failed: number;
    error: string | null;
  };
  /** A queued evaluation run (one on a shadow copy, issue 38) ended; `ndcg10` is null when it failed. */
  'evaluation.completed': {
    runId: string;
    collectionId: string;
    projectId: string;
    setId: string;
    setVersion: number;
    status: 'completed' | 'failed';
    ndcg10: number | null;
    error: string | null;
  };
  /** A hosted-agent run ended (not sent for previews, which store nothing). */
  'agent.run.completed': {
    runId: string;
    agentId: string;
    agentSlug: string;
    projectId: string;
    status: 'succeeded' | 'failed' | 'cancelled' | 'timeout';
    iterationsUsed: number;
    sourceCount: number;
    error: string | null;
  };
  /**
   * A test event an admin asked for (POST …/webhooks/:endpointId/test): sent to that one endpoint only, whatever it
   * subscribes to, once and without retries, so a receiver's URL, secret and signature check can be tried.
   */
  'webhook.test': { endpointId: string; projectId: string; message: string };
}

/**
 * An event to record in the outbox together with the state change that caused it. `env` is the sandbox it came
 * from: test-sandbox events reach only the endpoints that asked for them (`receiveTestEvents`), so a test key
 * cannot make a live endpoint receive authentic-looking production events.
 */
export type ServiceEvent = { [T in EventType]: { type: T; projectId: string; env: Env; data: EventData[T] } }[EventType];

/** The JSON body posted to a webhook endpoint (spec: Webhooks, body shape). */
export type WebhookBody = z.output<typeof responses.webhookBody>;

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/** Whether an endpoint gets an event of this sandbox: live events always, test events only when it opted in. */
export const endpointReceives = (endpoint: { receiveTestEvents: boolean }, env: Env): boolean => env === 'live' || endpoint.receiveTestEvents;

/** A typed event of a sandbox (the compiler checks `data` against the type). */
export const serviceEvent = <T extends EventType>(type: T, sandbox: Sandbox, data: EventData[T]): ServiceEvent =>
  ({ type, projectId: sandbox.projectId, env: sandbox.env, data }) as ServiceEvent;

/** What the event bus carries for a document status change: the DocumentEvent without its sandbox. */
export type DocumentStatusMessage = Omit<DocumentEvent, 'env'>;

/** The bus message of a document status change (`sectionCount` only with `sectioned`, `version` for a replaced one). */
export function documentStreamEvent(
  doc: Pick<DocumentRecord, 'id' | 'collectionId' | 'sectionCount' | 'version'>,
  status: DocumentStatus,
): DocumentStatusMessage {
  const event: DocumentStatusMessage = { documentId: doc.id, collectionId: doc.collectionId, status };
  if (status === 'sectioned') event.sectionCount = doc.sectionCount ?? 0;
  if ((doc.version ?? 1) > 1) event.version = doc.version;
  return event;
}

/**
 * The SSE DocumentEvent of a bus message, stamped with the sandbox of its collection (a stream follows one
 * collection, whose sandbox never changes, so the stamp costs no read per event).
 */
export const documentEventIn = (env: Env, message: DocumentStatusMessage): DocumentEvent => ({ ...message, env });

/** The webhook events of a document status change: `document.ready` (and `document.updated` for a replaced one) and `document.error`. */
export function documentWebhookEvents(
  doc: Pick<DocumentRecord, 'id' | 'collectionId' | 'version' | 'sourcePath'>,
  sandbox: Sandbox,
  status: DocumentStatus,
  errorMessage: string | null,
): ServiceEvent[] {
  const ids = { documentId: doc.id, collectionId: doc.collectionId, projectId: sandbox.projectId };
  const version = doc.version ?? 1;
  if (status === 'ready' && version > 1) {
    const updated = serviceEvent('document.updated', sandbox, { ...ids, version, sourcePath: doc.sourcePath ?? null });
    return [serviceEvent('document.ready', sandbox, ids), updated];
  }
  if (status === 'ready') return [serviceEvent('document.ready', sandbox, ids)];
  if (status === 'error') return [serviceEvent('document.error', sandbox, { ...ids, error: errorMessage ?? 'Processing failed' })];
  return [];
}
