import { randomUUID } from 'node:crypto';
import type { ContradictionRecord } from '@dossier/core';
import { dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer } from './helpers.ts';

/**
 * Issue 37, the APIs behind the dashboard's usage charts and long contradiction lists: usage of a month day by day
 * (GET /v1/usage/daily), and contradictions paged past 100 with offset.
 */

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const monthOf = (date: Date): string => date.toISOString().slice(0, 7);

describe('GET /v1/usage/daily', () => {
  it("gives every day of the current month up to today with the day's use and the running total, against the limits", async () => {
    const store = dossierContext(t.server.dossier).store;
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const first = `${monthOf(now)}-01`;
    const before = (await t.request('GET', '/v1/usage/daily')).body;
    await store.addUsage(t.projectId, 'live', 'credits', 2.5, `${first}T10:00:00.000Z`);
    await store.addUsage(t.projectId, 'live', 'credits', 1, now.toISOString());
    await store.addUsage(t.projectId, 'test', 'credits', 50, now.toISOString());
    const res = await t.request('GET', '/v1/usage/daily');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.month).toBe(monthOf(now));
    const credits = res.body.meters.credits;
    expect(credits.limit).toBeNull();
    expect(credits.days).toHaveLength(now.getUTCDate());
    expect(credits.days[0].date).toBe(first);
    expect(credits.days.at(-1).date).toBe(today);
    expect(credits.total).toBeCloseTo(before.meters.credits.total + 3.5);
    expect(credits.days.at(-1).cumulative).toBe(credits.total);
    const sum = credits.days.reduce((acc: number, day: Json) => acc + day.used, 0);
    expect(sum).toBeCloseTo(credits.total);
    // The totals agree with GET /v1/usage; the test sandbox is counted apart.
    expect((await t.request('GET', '/v1/usage')).body.meters.credits.used).toBeCloseTo(credits.total);
    expect((await t.request('GET', '/v1/usage/daily', { auth: t.testKey })).body.meters.credits.total).toBe(50);
    expect(res.body.meters.queries).toMatchObject({ limit: null, total: expect.any(Number) });
    expect(res.body.storage).toEqual({ usedMb: expect.any(Number), limitMb: null });
  });

  it('gives a past month whole, refuses a month not started yet or malformed, and needs a key', async () => {
    const now = new Date();
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
    const store = dossierContext(t.server.dossier).store;
    await store.addUsage(t.projectId, 'live', 'queries', 3, `${monthOf(last)}-15T23:59:59.000Z`);
    const res = await t.request('GET', `/v1/usage/daily?month=${monthOf(last)}`);
    expect(res.status).toBe(200);
    const days = res.body.meters.queries.days;
    expect(days).toHaveLength(new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 0)).getUTCDate());
    expect(days.find((day: Json) => day.date === `${monthOf(last)}-15`).used).toBe(3);
    expect(res.body.meters.queries.total).toBe(3);
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    expectError(await t.request('GET', `/v1/usage/daily?month=${monthOf(next)}`), 400, /not started/);
    expectError(await t.request('GET', '/v1/usage/daily?month=2026-13'), 400, /YYYY-MM/);
    expectError(await t.request('GET', '/v1/usage/daily?month=now'), 400, /YYYY-MM/);
    expectError(await t.request('GET', '/v1/usage/daily', { auth: null }), 401);
  });
});

describe('GET /v1/collections/:id/contradictions paged with offset', () => {
  it('pages past 100 with the filters applied, newest first, without repeats', async () => {
    const collection = await t.createCollection({ name: 'Many contradictions' });
    const doc = await t.ingest(collection.id, 'a.md', '# A\n\nThe allowance is 30 euros.\n');
    const rows: ContradictionRecord[] = Array.from({ length: 130 }, (_, n) => ({
      id: randomUUID(),
      collectionId: collection.id,
      severity: n % 2 === 0 ? 'high' : 'low',
      status: 'active',
      explanation: `Conflict ${n}`,
      clusterTopicSummary: `Topic ${n}`,
      suggestedInstruction: null,
      fingerprint: `fp-${n}`,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      claims: [{ claimId: randomUUID(), text: 'x', sourceText: 'x', documentId: doc.id, documentName: 'a.md', sectionId: randomUUID(), sectionTitle: 'A' }],
    }));
    await dossierContext(t.server.dossier).store.insertContradictions(rows);
    const page = (query: string) => t.request('GET', `/v1/collections/${collection.id}/contradictions?${query}`);
    const first = await page('limit=100');
    const second = await page('limit=100&offset=100');
    expect([first.body.total, first.body.items.length, second.body.total, second.body.items.length]).toEqual([130, 100, 130, 30]);
    const ids = [...first.body.items, ...second.body.items].map((c: Json) => c.id);
    expect(new Set(ids).size).toBe(130);
    expect(second.body.items.at(-1).explanation).toBe('Conflict 0');
    const high = await page('severity=high&limit=50&offset=50');
    expect([high.body.total, high.body.items.length]).toEqual([65, 15]);
    expect(high.body.items.every((c: Json) => c.severity === 'high')).toBe(true);
    expect((await page('offset=500')).body).toEqual({ total: 130, items: [] });
    expectError(await page('offset=-1'), 400, /offset/);
  });
});
