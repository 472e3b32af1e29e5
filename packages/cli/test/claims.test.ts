import { isClaimExtraction, recordClaimsTurn, ScriptedModel, type ScriptedTurn, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossier, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let cid: string;
let home: { home: string; cleanup: () => void };

const userText = (request: { messages: { role: string; content: unknown }[] }) => String(request.messages.find((m) => m.role === 'user')?.content ?? '');

const model = new ScriptedModel((request): ScriptedTurn => {
  const text = userText(request);
  if (isClaimExtraction(request)) {
    const days = text.includes('30 days') ? 30 : 14;
    return recordClaimsTurn([{ section: 1, text: `Refunds are accepted within ${days} days of purchase.`, importance: 4, sourceText: `within ${days} days` }]);
  }
  return {
    toolCalls: [
      {
        name: 'report_contradictions',
        arguments: {
          topicSummary: 'Refund window',
          contradictions: [
            { claims: [1, 2], severity: 'high', explanation: 'The refund windows differ.', suggestedInstruction: 'State the 30-day refund window.' },
          ],
        },
      },
    ],
  };
});

beforeAll(async () => {
  t = await startTestServer();
  const context = dossierContext(t.server.dossier);
  const scripted = scriptedResolver(model);
  context.models = { resolve: (...args) => scripted.resolve(...args), hasProvider: (access) => scripted.hasProvider(access) };
  cid = (await t.createCollection({ name: 'Refunds' })).id;
  await t.request('PATCH', `/v1/collections/${cid}`, { json: { enableSummarization: false, enableCaptioning: false } });
  await t.ingest(cid, 'terms-2023.md', '# Refunds\n\nCustomers may return goods within 14 days of purchase.\n');
  await t.ingest(cid, 'terms-2024.md', '# Returns\n\nCustomers may return goods within 30 days of purchase.\n');
  await t.server.dossier.idle();
  home = tempHome();
});
afterAll(async () => {
  home?.cleanup();
  await t?.close();
});

const run = (args: string[]) => dossier(home.home, [...args, '-c', cid], { env: { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey } });

describe('dossier claims and contradictions', () => {
  it("lists the collection's claims and shows one with its source passage", async () => {
    const listed = await run(['claims', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const { claims } = JSON.parse(listed.stdout);
    expect(claims.map((claim: { text: string }) => claim.text).sort()).toEqual([
      'Refunds are accepted within 14 days of purchase.',
      'Refunds are accepted within 30 days of purchase.',
    ]);
    const shown = await run(['claims', 'get', claims[0].id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/source: "within (14|30) days"/);
    expect((await run(['claims', 'get', '01a20000-0000-7000-8000-000000000000'])).code).not.toBe(0);
  });

  it('detects with --watch, lists, applies and dismisses', async () => {
    const detected = await run(['contradictions', 'detect', '--watch']);
    expect(detected.code, detected.stderr).toBe(0);
    expect(detected.stderr + detected.stdout).toMatch(/done: 2 claims in 1 groups, 1 new contradiction/);
    const listed = await run(['contradictions', 'list']);
    expect(listed.stdout).toContain('HIGH');
    expect(listed.stdout).toContain('suggested instruction: State the 30-day refund window.');
    const [item] = JSON.parse((await run(['contradictions', 'list', '--json'])).stdout).items;
    expect((await run(['contradictions', 'apply', item.id])).code).toBe(0);
    expect((await t.request('GET', `/v1/collections/${cid}`)).body.instructions).toBe('State the 30-day refund window.');
    const dismissed = await run(['contradictions', 'dismiss', item.id, '--json']);
    expect(JSON.parse(dismissed.stdout).status).toBe('dismissed');
    expect((await run(['contradictions', 'list', '--severity', 'extreme'])).code).not.toBe(0);
  });
});
