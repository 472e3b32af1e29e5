import { ScriptedModel, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossier, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let home: { home: string; cleanup: () => void };
let collectionId: string;

beforeAll(async () => {
  t = await startTestServer();
  home = tempHome();
  collectionId = (await t.createCollection({ name: 'Manuals' })).id;
  await t.ingest(collectionId, 'refunds.md', '# Refunds\n\n## Policy\n\nRefunds are paid within 14 days.\n');
  await t.server.dossier.idle();
});
afterAll(async () => {
  home.cleanup();
  await t?.close();
});

const run = (args: string[], env: Record<string, string> = {}) =>
  dossier(home.home, args, {
    env: {
      SERVICE_BASE_URL: t.url,
      SERVICE_API_KEY: t.liveKey,
      SERVICE_PROJECT_ID: t.projectId,
      SERVICE_ORG_ID: t.orgId,
      SERVICE_EMAIL: t.email,
      SERVICE_PASSWORD: t.password,
      ...env,
    },
  });

describe('dossier agents', () => {
  it('creates, lists, invokes (streamed and not) and shows the runs of an agent, logging in with the account', async () => {
    const created = await run([
      'agents',
      'create',
      'support',
      '--name',
      'Support',
      '--model',
      'scripted',
      '--system-prompt',
      'Answer from the manuals.',
      '--collections',
      collectionId,
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ slug: 'support', allowedCollectionIds: [collectionId] });
    expect((await run(['agents', 'list'])).stdout).toMatch(/^support +Support +scripted +1 /m);

    dossierContext(t.server.dossier).models = scriptedResolver(
      new ScriptedModel([
        { toolCalls: [{ name: 'search_collection', arguments: { collectionId, query: 'refund' } }] },
        { text: 'Within 14 days [S1].' },
        { text: 'Fourteen days.' },
      ]),
    );
    const streamed = await run(['agents', 'invoke', 'support', 'How fast are refunds?', '--json']);
    expect(streamed.code, streamed.stderr).toBe(0);
    const events = streamed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.type)).toEqual(['run_started', 'tool_call', 'tool_result', 'chunk', 'done']);
    const synced = await run(['agents', 'invoke', 'support', 'Again?', '--no-stream']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout.trim()).toBe('Fourteen days.');

    const runs = await run(['agents', 'runs', 'support']);
    expect(runs.stdout.match(/succeeded/g)).toHaveLength(2);
    const one = JSON.parse((await run(['agents', 'runs', 'support', events[0].runId, '--json'])).stdout);
    expect(one).toMatchObject({ id: events[0].runId, response: 'Within 14 days [S1].' });
    expect(one.steps.map((s: { kind: string }) => s.kind)).toEqual(['message', 'tool_call', 'tool_result', 'message']);
    expect((await run(['agents', 'delete', 'support'])).code).toBe(0);
    expect((await run(['agents', 'get', 'support'])).code).toBe(3);
  });

  it('says how to get a session when there is none', async () => {
    const none = await run(['agents', 'list'], { SERVICE_EMAIL: '', SERVICE_PASSWORD: '' });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/SERVICE_TOKEN/);
  });
});
