import type { ModelResolver } from '@dossier/core';
import { dossierContext, ScriptedModel, scriptedResolver } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer } from './helpers.ts';

/**
 * Issue 33, finding 6a: an agent tool named another tenant's document or section, and the error it got back named
 * that tenant's collection id ("Collection <theirs> is not one this agent may read"). It must say "not found", as
 * every other lookup of something out of reach does.
 */

let t: TestServer;
let token: string;
let ours: string;
let foreign: { collectionId: string; documentId: string; sectionId: string };
let current: ModelResolver;

beforeAll(async () => {
  t = await startTestServer();
  const context = dossierContext(t.server.dossier);
  current = context.models;
  context.models = { resolve: (...a) => current.resolve(...a), hasProvider: (a) => current.hasProvider(a) };
  token = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  ours = (await t.createCollection({ name: 'Ours' })).id;
  await t.ingest(ours, 'ours.md', '# Ours\n\n## Plans\n\nOur plans for 2025.\n');
  const other = await t.server.dossier.auth.bootstrap('other-tenant@example.test', 'another long password');
  const theirs = (await t.request('POST', '/v1/collections', { auth: other!.liveKey, json: { projectId: other!.projectId, name: 'Theirs' } })).body
    .id as string;
  const doc = await t.ingest(theirs, 'secret.md', '# Secret\n\n## Merger\n\nThe merger closes in May.\n', { auth: other!.liveKey });
  const sections = await t.request('GET', `/v1/documents/${doc.id}/sections`, { auth: other!.liveKey });
  expect(sections.status, JSON.stringify(sections.body)).toBe(200);
  foreign = { collectionId: theirs, documentId: doc.id, sectionId: (sections.body.sections ?? sections.body)[0].id };
  await t.server.dossier.idle();
});
afterAll(async () => {
  await t?.close();
});

describe('agent tool errors about things out of reach', () => {
  it("say 'not found' for another tenant's document and section, never naming their collection", async () => {
    const base = `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents`;
    const created = await t.request('POST', base, {
      auth: token,
      json: { slug: 'prober', name: 'Prober', systemPrompt: 'Answer from the documents.', model: 'scripted', allowedCollectionIds: [ours] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    current = scriptedResolver(
      new ScriptedModel([
        { toolCalls: [{ name: 'get_document', arguments: { documentId: foreign.documentId } }] },
        { toolCalls: [{ name: 'get_section_chunks', arguments: { section_id: foreign.sectionId } }] },
        { text: 'Nothing I may read.' },
      ]),
    );
    const res = await t.request('POST', `${base}/prober/invoke/sync`, { auth: token, json: { query: 'What about the merger?' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const steps = (await t.request('GET', `${base}/prober/runs/${res.body.runId}/steps`, { auth: token })).body as Json[];
    const results = steps.filter((s) => s.kind === 'tool_result').map((s) => String(s.content.summary));
    expect(results).toEqual([`Error: Document ${foreign.documentId} not found`, `Error: Section ${foreign.sectionId} not found`]);
    expect(JSON.stringify(steps)).not.toContain(foreign.collectionId);
  });
});
