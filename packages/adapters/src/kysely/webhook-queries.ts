import { randomUUID } from 'node:crypto';
import type {
  DocumentPatch,
  DocumentRecord,
  Env,
  EventType,
  ServiceEvent,
  WebhookAttemptOutcome,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointPatch,
  WebhookEndpointRecord,
} from '@dossier/core';
import { notFound } from '@dossier/core';
import { endpointReceives } from '@dossier/core/internal';
import type { Selectable } from 'kysely';
import { batches } from './batches.ts';
import type { StoreContext } from './dialect.ts';
import { updateDocument } from './document-queries.ts';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.ts';
import { statement, transaction } from './statements.ts';

/** Webhook endpoints, the delivery outbox and the attempt log. */

const endpointFromRow = (r: Selectable<WebhookEndpointsTable>): WebhookEndpointRecord => ({
  id: r.id,
  projectId: r.project_id,
  url: r.url,
  events: JSON.parse(r.events) as EventType[],
  enabled: Boolean(r.enabled),
  receiveTestEvents: Boolean(r.receive_test_events),
  description: r.description,
  secretEncrypted: r.secret_encrypted,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const deliveryFromRow = (r: Selectable<WebhookDeliveriesTable>): WebhookDeliveryRecord => ({
  id: r.id,
  endpointId: r.endpoint_id,
  projectId: r.project_id,
  eventType: r.event_type as EventType,
  env: r.env as Env,
  created: Number(r.created),
  data: JSON.parse(r.data) as Record<string, unknown>,
  status: r.status as WebhookDeliveryStatus,
  attempts: Number(r.attempts),
  lastAttemptAt: r.last_attempt_at,
  responseStatus: r.response_status === null ? null : Number(r.response_status),
  responseBody: r.response_body,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
});

const selectEnabledEndpoints = statement('enabledEndpoints', (db, projectId: string, enabled: WebhookEndpointsTable['enabled']) =>
  db.selectFrom('webhook_endpoints').selectAll().where('project_id', '=', projectId).where('enabled', '=', enabled),
);

/**
 * Fan events out to the enabled, subscribed endpoints of their projects (a test-sandbox event only to those that
 * receive test events): one pending delivery each, due now.
 */
export async function insertEvents(ctx: StoreContext, events: ServiceEvent[]): Promise<void> {
  const { db, dialect } = ctx;
  const now = new Date();
  for (const event of events) {
    const endpoints = await selectEnabledEndpoints(ctx, event.projectId, dialect.bool(true));
    const subscribed = endpoints.map(endpointFromRow).filter((e) => (e.events.length === 0 || e.events.includes(event.type)) && endpointReceives(e, event.env));
    if (subscribed.length === 0) continue;
    await db
      .insertInto('webhook_deliveries')
      .values(
        subscribed.map((endpoint) => ({
          id: randomUUID(),
          endpoint_id: endpoint.id,
          project_id: event.projectId,
          event_type: event.type,
          env: event.env,
          created: Math.floor(now.getTime() / 1000),
          data: JSON.stringify(event.data),
          status: 'pending',
          attempts: 0,
          last_attempt_at: null,
          response_status: null,
          response_body: null,
          next_attempt_at: now.toISOString(),
          queued_attempt: 0,
          queued_at: null,
          created_at: now.toISOString(),
        })),
      )
      .execute();
  }
}

export async function recordEvents(ctx: StoreContext, events: ServiceEvent[]): Promise<void> {
  if (events.length === 0) return;
  await transaction(ctx, (tx) => insertEvents(tx, events));
}

/**
 * Run a state change and record the events it causes in one transaction (the outbox): either both are saved or
 * neither is. Without events the change runs as it would on its own.
 */
export async function writeWithEvents<T>(ctx: StoreContext, events: ServiceEvent[], write: (inTransaction: StoreContext) => Promise<T>): Promise<T> {
  if (events.length === 0) return write(ctx);
  return transaction(ctx, async (tx) => {
    const result = await write(tx);
    await insertEvents(tx, events);
    return result;
  });
}

export async function updateDocumentWithEvents(ctx: StoreContext, id: string, patch: DocumentPatch, events: ServiceEvent[]): Promise<DocumentRecord> {
  return writeWithEvents(ctx, events, (inTransaction) => updateDocument(inTransaction, id, patch));
}

export async function insertWebhookEndpoint({ db, dialect }: StoreContext, e: WebhookEndpointRecord): Promise<void> {
  await db
    .insertInto('webhook_endpoints')
    .values({
      id: e.id,
      project_id: e.projectId,
      url: e.url,
      events: JSON.stringify(e.events),
      enabled: dialect.bool(e.enabled),
      receive_test_events: dialect.bool(e.receiveTestEvents),
      description: e.description,
      secret_encrypted: e.secretEncrypted,
      created_at: e.createdAt,
      updated_at: e.updatedAt,
    })
    .execute();
}

export async function getWebhookEndpoint({ db }: StoreContext, id: string): Promise<WebhookEndpointRecord | null> {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? endpointFromRow(row) : null;
}

export async function listWebhookEndpoints({ db }: StoreContext, projectId: string): Promise<WebhookEndpointRecord[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.map(endpointFromRow);
}

export async function updateWebhookEndpoint(ctx: StoreContext, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRecord> {
  const row = {
    ...(patch.url !== undefined ? { url: patch.url } : {}),
    ...(patch.events !== undefined ? { events: JSON.stringify(patch.events) } : {}),
    ...(patch.enabled !== undefined ? { enabled: ctx.dialect.bool(patch.enabled) } : {}),
    ...(patch.receiveTestEvents !== undefined ? { receive_test_events: ctx.dialect.bool(patch.receiveTestEvents) } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.updatedAt !== undefined ? { updated_at: patch.updatedAt } : {}),
  };
  if (Object.keys(row).length > 0) await ctx.db.updateTable('webhook_endpoints').set(row).where('id', '=', id).execute();
  const updated = await getWebhookEndpoint(ctx, id);
  if (!updated) throw notFound('Webhook endpoint');
  return updated;
}

export async function deleteWebhookEndpoint({ db }: StoreContext, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const deliveries = trx.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id);
    await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  });
}

export async function insertWebhookDelivery({ db }: StoreContext, d: WebhookDeliveryRecord): Promise<void> {
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: d.id,
      endpoint_id: d.endpointId,
      project_id: d.projectId,
      event_type: d.eventType,
      env: d.env,
      created: d.created,
      data: JSON.stringify(d.data),
      status: d.status,
      attempts: d.attempts,
      last_attempt_at: d.lastAttemptAt,
      response_status: d.responseStatus,
      response_body: d.responseBody,
      next_attempt_at: d.nextAttemptAt,
      queued_attempt: 0,
      queued_at: null,
      created_at: d.createdAt,
    })
    .execute();
}

export async function getWebhookDelivery({ db }: StoreContext, id: string): Promise<WebhookDeliveryRecord | null> {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? deliveryFromRow(row) : null;
}

export async function listWebhookDeliveries({ db }: StoreContext, endpointId: string, limit: number): Promise<WebhookDeliveryRecord[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(deliveryFromRow);
}

export async function listDueWebhookDeliveries({ db }: StoreContext, now: string, staleBefore: string, limit: number): Promise<WebhookDeliveryRecord[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('queued_attempt', '<=', eb.ref('attempts')), eb('queued_at', 'is', null), eb('queued_at', '<', staleBefore)]))
    .orderBy('next_attempt_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  return rows.map(deliveryFromRow);
}

export async function markWebhookDeliveriesQueued({ db }: StoreContext, queued: { id: string; attempt: number }[]): Promise<void> {
  if (queued.length === 0) return;
  const at = new Date().toISOString();
  await db.transaction().execute(async (trx) => {
    for (const { id, attempt } of queued) {
      await trx.updateTable('webhook_deliveries').set({ queued_attempt: attempt, queued_at: at }).where('id', '=', id).execute();
    }
  });
}

export async function recordWebhookAttempt({ db }: StoreContext, o: WebhookAttemptOutcome): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: o.status,
        attempts: o.attempt,
        last_attempt_at: o.at,
        response_status: o.responseStatus,
        response_body: o.responseBody,
        next_attempt_at: o.nextAttemptAt,
      })
      .where('id', '=', o.deliveryId)
      .where('status', '=', 'pending')
      .where('attempts', '=', o.attempt - 1)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: o.deliveryId,
        attempt: o.attempt,
        at: o.at,
        response_status: o.responseStatus,
        response_body: o.responseBody,
        duration_ms: Math.max(0, Math.round(o.durationMs)),
      })
      .execute();
    return true;
  });
}

export async function failWebhookDelivery({ db }: StoreContext, id: string, reason: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', response_body: reason, next_attempt_at: null })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

export async function resetWebhookDelivery(ctx: StoreContext, id: string, now: string): Promise<WebhookDeliveryRecord> {
  await ctx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, queued_attempt: 0, queued_at: null })
    .where('id', '=', id)
    .execute();
  const updated = await getWebhookDelivery(ctx, id);
  if (!updated) throw notFound('Delivery');
  return updated;
}

export async function listWebhookAttempts({ db }: StoreContext, deliveryIds: string[]): Promise<WebhookAttemptRecord[]> {
  const out: WebhookAttemptRecord[] = [];
  for (const batch of batches([...new Set(deliveryIds)])) {
    const rows = await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', batch).orderBy('seq', 'asc').execute();
    out.push(
      ...rows.map((r) => ({
        deliveryId: r.delivery_id,
        attempt: Number(r.attempt),
        at: r.at,
        responseStatus: r.response_status === null ? null : Number(r.response_status),
        responseBody: r.response_body,
        durationMs: Number(r.duration_ms),
      })),
    );
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}
