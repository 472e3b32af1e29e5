import { ScriptedModel, scriptedResolver, dossierContext } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from './helpers.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('POST /v1/collections/:id/describe', () => {
  it('writes the description from file names and headings with the fast model, and refuses what it cannot describe', async () => {
    const notes = await t.createCollection({ name: 'notes' });
    await t.ingest(notes.id, 'birds.md', '# Birds\n\n## Songs\n\nThe wren sings loudly.\n');
    await t.server.dossier.idle();
    expectError(await t.request('POST', `/v1/collections/${notes.id}/describe`), 400, /model provider/i);
    const model = new ScriptedModel([{ text: '  Field notes on  birds \n and their songs.  ' }]);
    dossierContext(t.server.dossier).models = scriptedResolver(model);
    const empty = await t.createCollection({ name: 'empty' });
    expectError(await t.request('POST', `/v1/collections/${empty.id}/describe`), 409, /no ready documents/);
    const res = await t.request('POST', `/v1/collections/${notes.id}/describe`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: notes.id, description: 'Field notes on birds and their songs.' });
    const sent = model.calls.at(-1)!.request;
    expect(sent.model).toBe('scripted-fast');
    expect(String(sent.messages[1]!.content)).toContain('birds.md: Birds · Songs');
    expectError(await t.request('POST', `/v1/collections/${notes.id}/describe`, { auth: t.testKey }), 404);
  });
});
