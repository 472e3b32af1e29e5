import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DocumentRecord, Env } from '../domain/types.ts';
import { serviceEvent } from '../events/catalogue.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import type { WebhookAttemptOutcome, WebhookEndpointRecord } from '../ports/webhook-store.ts';
import { documentRecord, seedCollection, seedProject } from './seed.ts';

/** Conformance tests of the WebhookStore part of a MetadataStore (run by metadataStoreSuite). */

const at = (second: number): string => new Date(Date.parse('2024-05-01T00:00:00.000Z') + second * 1000).toISOString();

async function seed(store: MetadataStore): Promise<{ projectId: string; doc: DocumentRecord }> {
  const projectId = await seedProject(store, at(0));
  const collectionId = await seedCollection(store, projectId, 'Hooks', at(1));
  const doc = documentRecord(collectionId, 'doc.md', at(2), { status: 'embedded' });
  await store.insertDocument(doc);
  return { projectId, doc };
}

const endpoint = (projectId: string, second: number, over: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  id: randomUUID(),
  projectId,
  url: `https://hooks.example.com/${second}`,
  events: [],
  enabled: true,
  receiveTestEvents: false,
  description: null,
  secretEncrypted: 'v1:iv:tag:data',
  createdAt: at(second),
  updatedAt: at(second),
  ...over,
});

const readyEvent = (projectId: string, doc: DocumentRecord, env: Env = 'live') =>
  serviceEvent('document.ready', { projectId, env }, { documentId: doc.id, collectionId: doc.collectionId, projectId });

const FAR = '2999-01-01T00:00:00.000Z';

export function webhookStoreTests(store: () => MetadataStore): void {
  describe('webhook endpoints and the delivery outbox', () => {
    it('stores endpoints with every field, lists them oldest first, patches and deletes them', async () => {
      const { projectId } = await seed(store());
      const first = endpoint(projectId, 10, { events: ['document.error'], description: 'first' });
      const second = endpoint(projectId, 11, { enabled: false });
      await store().insertWebhookEndpoint(second);
      await store().insertWebhookEndpoint(first);
      expect(await store().getWebhookEndpoint(first.id)).toEqual(first);
      expect((await store().listWebhookEndpoints(projectId)).map((e) => e.id)).toEqual([first.id, second.id]);
      const patched = await store().updateWebhookEndpoint(first.id, { enabled: false, events: [], description: null, updatedAt: at(20) });
      expect(patched).toEqual({ ...first, enabled: false, events: [], description: null, updatedAt: at(20) });
      await store().deleteWebhookEndpoint(first.id);
      expect(await store().getWebhookEndpoint(first.id)).toBeNull();
    });

    it('writes a status change and its deliveries together, one per enabled subscribed endpoint', async () => {
      const { projectId, doc } = await seed(store());
      const all = endpoint(projectId, 10);
      const readyOnly = endpoint(projectId, 11, { events: ['document.ready'] });
      const errorOnly = endpoint(projectId, 12, { events: ['document.error'] });
      const disabled = endpoint(projectId, 13, { enabled: false });
      for (const e of [all, readyOnly, errorOnly, disabled]) await store().insertWebhookEndpoint(e);
      const updated = await store().updateDocumentWithEvents(doc.id, { status: 'ready' }, [readyEvent(projectId, doc)]);
      expect(updated.status).toBe('ready');
      const due = await store().listDueWebhookDeliveries(FAR, at(0), 100);
      expect(due.map((d) => d.endpointId).sort()).toEqual([all.id, readyOnly.id].sort());
      expect(due[0]).toMatchObject({ status: 'pending', attempts: 0, eventType: 'document.ready', projectId, data: readyEvent(projectId, doc).data });
      expect(Number.isInteger(due[0]!.created)).toBe(true);
      // A failing state change records nothing.
      await expect(store().updateDocumentWithEvents(randomUUID(), { status: 'ready' }, [readyEvent(projectId, doc)])).rejects.toThrow();
      expect(await store().listDueWebhookDeliveries(FAR, at(0), 100)).toHaveLength(2);
    });

    it("sends test-sandbox events only to endpoints that receive them, and keeps each delivery's sandbox", async () => {
      const { projectId, doc } = await seed(store());
      const liveOnly = endpoint(projectId, 10);
      const both = endpoint(projectId, 11, { receiveTestEvents: true });
      for (const e of [liveOnly, both]) await store().insertWebhookEndpoint(e);
      expect(await store().getWebhookEndpoint(both.id)).toEqual(both);
      await store().recordEvents([readyEvent(projectId, doc, 'test')]);
      const tested = await store().listDueWebhookDeliveries(FAR, at(0), 100);
      expect(tested.map((d) => [d.endpointId, d.env])).toEqual([[both.id, 'test']]);
      await store().recordEvents([readyEvent(projectId, doc, 'live')]);
      const live = (await store().listDueWebhookDeliveries(FAR, at(0), 100)).filter((d) => d.env === 'live');
      expect(live.map((d) => d.endpointId).sort()).toEqual([liveOnly.id, both.id].sort());
      expect((await store().updateWebhookEndpoint(both.id, { receiveTestEvents: false })).receiveTestEvents).toBe(false);
    });

    it('saves a run completion with its event in one transaction, and a failing save records no event', async () => {
      const { projectId, doc } = await seed(store());
      await store().insertWebhookEndpoint(endpoint(projectId, 10));
      const collectionId = doc.collectionId;
      const completed = (runId: string) => [
        serviceEvent(
          'duplicates.completed',
          { projectId, env: 'live' },
          {
            runId,
            collectionId,
            projectId,
            status: 'completed',
            duplicatesDetected: 1,
            duplicateGroupsCreated: 1,
            error: null,
          },
        ),
      ];
      const runId = randomUUID();
      const blank = { startedAt: null, completedAt: null, error: null, createdAt: at(3) };
      await store().insertDuplicateRun({
        ...blank,
        id: runId,
        collectionId,
        status: 'running',
        jobsEnqueued: 1,
        jobsProcessed: 0,
        duplicatesDetected: null,
        duplicateGroupsCreated: null,
      });
      await store().updateDuplicateRun(runId, { status: 'completed', completedAt: at(4) }, completed(runId));
      expect((await store().latestDuplicateRun(collectionId))?.status).toBe('completed');
      const contradictionRunId = randomUUID();
      await store().insertContradictionRun({
        ...blank,
        id: contradictionRunId,
        collectionId,
        status: 'running',
        claimsProcessed: null,
        clustersAnalyzed: null,
        contradictionsFound: null,
        model: null,
      });
      await store().updateContradictionRun(contradictionRunId, { status: 'failed', error: 'down' }, [
        serviceEvent(
          'contradictions.completed',
          { projectId, env: 'live' },
          {
            runId: contradictionRunId,
            collectionId,
            projectId,
            status: 'failed',
            contradictionsFound: null,
            error: 'down',
          },
        ),
      ]);
      const session = {
        id: randomUUID(),
        collectionId,
        query: 'q',
        response: 'a',
        depth: 'quick' as const,
        model: 'm',
        sources: [],
        unresolvedCitations: [],
        usage: null,
        createdAt: at(5),
      };
      const researched = [
        serviceEvent('research.completed', { projectId, env: 'live' }, { sessionId: session.id, collectionId, projectId, depth: 'quick', sourceCount: 0 }),
      ];
      await store().insertResearchSession(session, researched);
      const types = async () => (await store().listDueWebhookDeliveries(FAR, at(0), 100)).map((d) => d.eventType).sort();
      expect(await types()).toEqual(['contradictions.completed', 'duplicates.completed', 'research.completed']);
      // The same session again violates its key: neither it nor its event is saved.
      await expect(store().insertResearchSession(session, researched)).rejects.toThrow();
      expect(await types()).toEqual(['contradictions.completed', 'duplicates.completed', 'research.completed']);
    });

    it('lists due deliveries until a job is queued, records attempts once, resets and logs them', async () => {
      const { projectId, doc } = await seed(store());
      const e = endpoint(projectId, 10);
      await store().insertWebhookEndpoint(e);
      await store().recordEvents([readyEvent(projectId, doc), readyEvent(projectId, doc)]);
      const [one, two] = await store().listDueWebhookDeliveries(FAR, at(0), 100);
      await store().markWebhookDeliveriesQueued([
        { id: one!.id, attempt: 1 },
        { id: two!.id, attempt: 1 },
      ]);
      expect(await store().listDueWebhookDeliveries(FAR, at(0), 100)).toEqual([]);
      expect((await store().listDueWebhookDeliveries(FAR, FAR, 100)).length).toBe(2);
      const outcome: WebhookAttemptOutcome = {
        deliveryId: one!.id,
        attempt: 1,
        at: at(30),
        responseStatus: 500,
        responseBody: 'down',
        durationMs: 12,
        status: 'pending',
        nextAttemptAt: at(40),
      };
      expect(await store().recordWebhookAttempt(outcome)).toBe(true);
      expect(await store().recordWebhookAttempt(outcome)).toBe(false);
      expect(await store().getWebhookDelivery(one!.id)).toMatchObject({
        attempts: 1,
        status: 'pending',
        lastAttemptAt: at(30),
        responseStatus: 500,
        responseBody: 'down',
        nextAttemptAt: at(40),
      });
      expect((await store().listDueWebhookDeliveries(at(39), at(0), 100)).map((d) => d.id)).toEqual([]);
      expect((await store().listDueWebhookDeliveries(at(40), at(0), 100)).map((d) => d.id)).toEqual([one!.id]);
      await store().recordWebhookAttempt({
        ...outcome,
        attempt: 2,
        at: at(41),
        responseStatus: 200,
        responseBody: 'ok',
        status: 'success',
        nextAttemptAt: null,
      });
      const reset = await store().resetWebhookDelivery(one!.id, at(50));
      expect(reset).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: at(50) });
      const log = await store().listWebhookAttempts([one!.id, two!.id]);
      expect(log.map((a) => [a.attempt, a.responseStatus])).toEqual([
        [1, 500],
        [2, 200],
      ]);
      await store().failWebhookDelivery(two!.id, 'Skipped: the endpoint is disabled');
      expect(await store().getWebhookDelivery(two!.id)).toMatchObject({ status: 'failed', attempts: 0, responseBody: 'Skipped: the endpoint is disabled' });
      expect((await store().listWebhookDeliveries(e.id, 1)).length).toBe(1);
      await store().deleteWebhookEndpoint(e.id);
      expect(await store().getWebhookDelivery(one!.id)).toBeNull();
      expect(await store().listWebhookAttempts([one!.id])).toEqual([]);
    });

    it('stores a single delivery as given (a test event): never swept while it has no due time, then logged (issue 37)', async () => {
      const { projectId } = await seed(store());
      const e = endpoint(projectId, 60, { events: ['document.error'], enabled: false });
      await store().insertWebhookEndpoint(e);
      const delivery = {
        id: randomUUID(),
        endpointId: e.id,
        projectId,
        eventType: 'webhook.test' as const,
        env: 'live' as const,
        created: 1_714_521_660,
        data: { endpointId: e.id, projectId, message: 'test' },
        status: 'pending' as const,
        attempts: 0,
        lastAttemptAt: null,
        responseStatus: null,
        responseBody: null,
        nextAttemptAt: null,
        createdAt: at(60),
      };
      await store().insertWebhookDelivery(delivery);
      expect(await store().getWebhookDelivery(delivery.id)).toEqual(delivery);
      expect((await store().listDueWebhookDeliveries(FAR, FAR, 100)).map((d) => d.id)).not.toContain(delivery.id);
      const applied = await store().recordWebhookAttempt({
        deliveryId: delivery.id,
        attempt: 1,
        at: at(61),
        responseStatus: 204,
        responseBody: '',
        durationMs: 3,
        status: 'success',
        nextAttemptAt: null,
      });
      expect(applied).toBe(true);
      expect((await store().listWebhookDeliveries(e.id, 10)).map((d) => [d.eventType, d.status, d.attempts])).toEqual([['webhook.test', 'success', 1]]);
    });
  });
}
