import type { WebhookStore } from '../ports/webhook-store.ts';
import type { ContextPart } from '../context.ts';
import type { EventData, WebhookBody } from '../events/catalogue.ts';
import type { Job } from '../ports/job-queue.ts';
import type { WebhookAttemptOutcome, WebhookDeliveryRecord, WebhookEndpointRecord } from '../ports/webhook-store.ts';
import { newId } from '../util/ids.ts';
import type { WebhookResponse, WebhookSender } from '../ports/webhook-sender.ts';
import { DEFAULT_WEBHOOK_SCHEDULE, nextRetryDelayMs, type WebhookSchedule } from './schedule.ts';
import { signBody } from './signing.ts';

/** Job type of one delivery attempt. */
export const WEBHOOK_JOB = 'webhooks.deliver';

/** Stored response bodies keep this many bytes (spec: first 1,024 bytes). */
export const RESPONSE_BODY_BYTES = 1024;

export interface WebhookSettings extends WebhookSchedule {
  /** How often the outbox is swept for deliveries without a queued job (crash recovery, other processes). */
  sweepMs: number;
  /** A due delivery this late is queued again even if a job was queued for it (that job was lost). */
  staleMs: number;
  /** Delivery attempts running at once in this process. */
  concurrency: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  ...DEFAULT_WEBHOOK_SCHEDULE,
  sweepMs: 30_000,
  staleMs: 10 * 60_000,
  concurrency: 8,
};

/** Sender used when none is configured: every attempt fails and says so. */
export const unconfiguredSender: WebhookSender = {
  send: async () => ({ ok: false, error: 'Webhook delivery is not configured in this process' }),
};

/** The body posted for a delivery (spec: id, type, created, data; and env, the sandbox it came from). */
export const webhookBody = (d: WebhookDeliveryRecord): WebhookBody => ({ id: d.id, type: d.eventType, env: d.env, created: d.created, data: d.data });

/** The signed request of a delivery; the body bytes are the same on every attempt. */
export function webhookRequest(d: WebhookDeliveryRecord, url: string, secret: string) {
  const body = JSON.stringify(webhookBody(d));
  const headers = {
    'Content-Type': 'application/json',
    'X-Service-Signature': signBody(secret, body),
    'X-Service-Event-Id': d.id,
    'X-Service-Event-Type': d.eventType,
  };
  return { url, body, headers };
}

/** Queue one job per delivery for its next attempt, then note it (dedupe keys make a repeat harmless). */
export async function queueDeliveries(ctx: ContextPart<'queue', WebhookStore>, rows: WebhookDeliveryRecord[]): Promise<void> {
  if (rows.length === 0) return;
  const queued: { id: string; attempt: number }[] = [];
  for (const row of rows) {
    const attempt = row.attempts + 1;
    const runAt = row.nextAttemptAt ? new Date(row.nextAttemptAt) : new Date();
    await ctx.queue.enqueue({ type: WEBHOOK_JOB, payload: { deliveryId: row.id, attempt }, dedupeKey: `webhook:${row.id}:${attempt}`, runAt, maxAttempts: 3 });
    queued.push({ id: row.id, attempt });
  }
  await ctx.store.markWebhookDeliveriesQueued(queued);
}

/** What an attempt's response means for its delivery (`schedule` null: no retry, a failure is final). */
function outcomeOf(d: WebhookDeliveryRecord, response: WebhookResponse, startedAt: number, schedule: WebhookSchedule | null): WebhookAttemptOutcome {
  const attempt = d.attempts + 1;
  const success = response.ok && response.status >= 200 && response.status < 300;
  const delay = success || schedule === null ? null : nextRetryDelayMs(attempt, schedule);
  return {
    deliveryId: d.id,
    attempt,
    at: new Date(startedAt).toISOString(),
    responseStatus: response.ok ? response.status : null,
    responseBody: truncateUtf8(response.ok ? response.body : response.error, RESPONSE_BODY_BYTES),
    durationMs: Date.now() - startedAt,
    status: success ? 'success' : delay === null ? 'failed' : 'pending',
    nextAttemptAt: delay === null ? null : new Date(Date.now() + delay).toISOString(),
  };
}

/** The first `bytes` bytes of a string, never splitting a character. */
export function truncateUtf8(text: string, bytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= bytes) return text;
  return new TextDecoder('utf-8', { fatal: false }).decode(buf.subarray(0, bytes)).replace(/\uFFFD$/, '');
}

/**
 * One delivery attempt (job `webhooks.deliver`, payload {deliveryId, attempt}). Idempotent: a job whose
 * attempt was already made, or whose delivery is no longer pending, does nothing.
 */
export async function runDeliveryJob(
  ctx: ContextPart<'queue' | 'secrets', WebhookStore>,
  sender: WebhookSender,
  schedule: WebhookSchedule,
  job: Job,
): Promise<void> {
  const delivery = await ctx.store.getWebhookDelivery(String(job.payload.deliveryId));
  if (delivery?.status !== 'pending' || delivery.attempts + 1 !== job.payload.attempt) return;
  const endpoint = await ctx.store.getWebhookEndpoint(delivery.endpointId);
  if (!endpoint) return;
  if (!endpoint.enabled) {
    await ctx.store.failWebhookDelivery(delivery.id, 'Skipped: the endpoint is disabled');
    return;
  }
  const startedAt = Date.now();
  const response = await sender.send(webhookRequest(delivery, endpoint.url, ctx.secrets.decrypt(endpoint.secretEncrypted)));
  const outcome = outcomeOf(delivery, response, startedAt, schedule);
  if (!(await ctx.store.recordWebhookAttempt(outcome))) return;
  if (outcome.status === 'pending') {
    await queueDeliveries(ctx, [{ ...delivery, attempts: outcome.attempt, nextAttemptAt: outcome.nextAttemptAt }]);
  }
}

/**
 * Send a `webhook.test` event to one endpoint now and wait for the answer (POST …/webhooks/:endpointId/test). It is
 * signed and logged like any delivery, sent whatever the endpoint subscribes to (and even while it is disabled, so
 * a receiver can be checked before it is turned on), from the live sandbox, once: a failure is final, not retried
 * (a manual retry sends it again on the normal schedule). Returns the delivery as recorded.
 */
export async function sendTestEvent(
  ctx: ContextPart<'secrets', WebhookStore>,
  sender: WebhookSender,
  endpoint: WebhookEndpointRecord,
  message: string,
): Promise<WebhookDeliveryRecord> {
  const now = new Date();
  const data: EventData['webhook.test'] = { endpointId: endpoint.id, projectId: endpoint.projectId, message };
  const delivery: WebhookDeliveryRecord = {
    id: newId(),
    endpointId: endpoint.id,
    projectId: endpoint.projectId,
    eventType: 'webhook.test',
    env: 'live',
    created: Math.floor(now.getTime() / 1000),
    data,
    status: 'pending',
    attempts: 0,
    lastAttemptAt: null,
    responseStatus: null,
    responseBody: null,
    nextAttemptAt: null,
    createdAt: now.toISOString(),
  };
  await ctx.store.insertWebhookDelivery(delivery);
  const startedAt = Date.now();
  const response = await sender.send(webhookRequest(delivery, endpoint.url, ctx.secrets.decrypt(endpoint.secretEncrypted)));
  await ctx.store.recordWebhookAttempt(outcomeOf(delivery, response, startedAt, null));
  return (await ctx.store.getWebhookDelivery(delivery.id)) ?? delivery;
}

/** Turns outbox rows into queued jobs: after each state change (kick) and on a timer (recovery). */
export function createWebhookDispatcher(ctx: ContextPart<'log' | 'queue', WebhookStore>, settings: WebhookSettings, wake: () => void) {
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | null = null;
  let again = false;

  async function sweepOnce(): Promise<number> {
    const now = Date.now();
    const rows = await ctx.store.listDueWebhookDeliveries(new Date(now).toISOString(), new Date(now - settings.staleMs).toISOString(), 500);
    await queueDeliveries(ctx, rows);
    if (rows.length > 0) wake();
    return rows.length;
  }

  /** Sweep until nothing is left to queue; a kick during a sweep runs one more. */
  function sweep(): Promise<void> {
    if (sweeping) {
      again = true;
      return sweeping;
    }
    sweeping = (async () => {
      do {
        again = false;
        while ((await sweepOnce()) === 500);
      } while (again);
    })()
      .catch((err: unknown) => ctx.log.warn('webhook outbox sweep failed', { error: String(err) }))
      .finally(() => {
        sweeping = null;
      });
    return sweeping;
  }

  return {
    /** Queue whatever the outbox holds now. */
    kick: (): Promise<void> => sweep(),
    start(): void {
      void sweep();
      timer ??= setInterval(() => void sweep(), settings.sweepMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await sweeping;
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
