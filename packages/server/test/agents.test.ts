import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Json, startTestServer, type TestServer } from './helpers.ts';
import { dossierContext } from '@dossier/core/testing';

let t: TestServer;
let token: string;
let base: string;
let collectionId: string;
/** An org where the bootstrap account is only a member, with one project. */
let memberBase: string;

beforeAll(async () => {
  t = await startTestServer();
  const login = await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } });
  token = login.body.token;
  base = `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents`;
  collectionId = (await t.createCollection({ name: 'Agent sources' })).id;
  const store = dossierContext(t.server.dossier).store;
  const orgId = crypto.randomUUID();
  const projectId = crypto.randomUUID();
  await store.createOrg({ id: orgId, name: 'Member org', createdAt: new Date().toISOString() }, login.body.user.id, 'member');
  await store.createProject({ id: projectId, orgId, name: 'Member project', createdAt: new Date().toISOString() });
  memberBase = `/v1/orgs/${orgId}/projects/${projectId}/agents`;
});
afterAll(async () => {
  await t?.close();
});

const jwt = (method: string, path: string, json?: unknown) => t.request(method, path, { auth: token, ...(json === undefined ? {} : { json }) });
const draft = (over: Record<string, unknown> = {}) => ({
  slug: `a-${crypto.randomUUID().slice(0, 8)}`,
  name: 'Helper',
  systemPrompt: 'You answer from the documents.',
  model: 'scripted',
  allowedCollectionIds: null,
  ...over,
});
const ALL_TOOLS = { search_collection: true, scan_sections: true, get_section_chunks: true, list_documents: true, get_document: true };

describe('hosted agents: create', () => {
  it('creates an agent with the spec defaults (201) and shows it without its project id', async () => {
    const res = await jwt('POST', base, draft({ slug: 'support-bot', description: 'Answers support questions', toolset: { get_document: false } }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      slug: 'support-bot',
      name: 'Helper',
      description: 'Answers support questions',
      systemPrompt: 'You answer from the documents.',
      model: 'scripted',
      timeoutMs: 300_000,
      toolset: { ...ALL_TOOLS, get_document: false },
      allowedCollectionIds: null,
      outputSchema: null,
      createdBy: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: res.body.createdAt,
    });
  });

  it('answers 409 to a slug the project already has', async () => {
    await jwt('POST', base, draft({ slug: 'taken' }));
    expectError(await jwt('POST', base, draft({ slug: 'taken' })), 409, /slug/);
  });

  it('answers 400 to an empty allow-list, a foreign collection, a bad slug, a bad timeout or an unknown tool', async () => {
    expectError(await jwt('POST', base, draft({ allowedCollectionIds: [] })), 400, /allowedCollectionIds/);
    expectError(await jwt('POST', base, draft({ allowedCollectionIds: [crypto.randomUUID()] })), 400, /not a collection of this project/);
    for (const slug of ['Upper', '-lead', 'trail-', 'a'.repeat(101), 'has space']) expectError(await jwt('POST', base, draft({ slug })), 400, /slug/);
    expectError(await jwt('POST', base, draft({ timeoutMs: 600_001 })), 400, /timeoutMs/);
    expectError(await jwt('POST', base, draft({ toolset: { web_search: true } })), 400, /web_search/);
    expectError(await jwt('POST', base, { name: 'no slug' }), 400);
    const ok = await jwt('POST', base, draft({ slug: 'a'.repeat(100), timeoutMs: 600_000, allowedCollectionIds: [collectionId] }));
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ timeoutMs: 600_000, allowedCollectionIds: [collectionId] });
  });
});

describe('hosted agents: read, update and delete', () => {
  it('lists agents a page at a time with hasMore', async () => {
    const all: Json[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = await jwt('GET', `${base}?limit=2&offset=${offset}`);
      expect(page.status).toBe(200);
      expect(page.body.agents.length).toBeLessThanOrEqual(2);
      all.push(...page.body.agents);
      if (!page.body.hasMore) break;
    }
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(new Set(all.map((agent) => agent.id)).size).toBe(all.length);
    expectError(await jwt('GET', `${base}?limit=0`), 400, /limit/);
  });

  it('gets an agent by id or slug; 404 for an unknown one', async () => {
    const created = (await jwt('POST', base, draft())).body;
    expect((await jwt('GET', `${base}/${created.id}`)).body).toEqual(created);
    expect((await jwt('GET', `${base}/${created.slug}`)).body).toEqual(created);
    expectError(await jwt('GET', `${base}/${crypto.randomUUID()}`), 404);
  });

  it('merges a patch: omitted keys stay, null clears, the allow-list widens, the toolset merges key by key', async () => {
    const created = (
      await jwt(
        'POST',
        base,
        draft({
          description: 'old',
          allowedCollectionIds: [collectionId],
          timeoutMs: 5000,
          outputSchema: { type: 'object' },
          toolset: { scan_sections: false },
        }),
      )
    ).body;
    const res = await jwt('PATCH', `${base}/${created.id}`, {
      description: null,
      allowedCollectionIds: null,
      outputSchema: null,
      toolset: { get_document: false },
      name: 'Renamed',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      ...created,
      name: 'Renamed',
      description: null,
      allowedCollectionIds: null,
      outputSchema: null,
      toolset: { ...ALL_TOOLS, scan_sections: false, get_document: false },
      updatedAt: expect.any(String),
    });
    const reset = await jwt('PATCH', `${base}/${created.id}`, { timeoutMs: null, toolset: null });
    expect(reset.body).toMatchObject({ timeoutMs: 300_000, toolset: ALL_TOOLS, name: 'Renamed' });
    expectError(await jwt('PATCH', `${base}/${created.id}`, { allowedCollectionIds: [] }), 400, /allowedCollectionIds/);
    expectError(await jwt('PATCH', `${base}/${created.id}`, { id: 'x' }), 400, /unknown field/);
  });

  it('changes a slug only with confirmSlugChange true, and never onto a taken slug', async () => {
    const created = (await jwt('POST', base, draft())).body;
    expectError(await jwt('PATCH', `${base}/${created.id}`, { slug: 'renamed-slug' }), 400, /confirmSlugChange/);
    expect((await jwt('PATCH', `${base}/${created.id}`, { slug: created.slug })).status).toBe(200);
    const moved = await jwt('PATCH', `${base}/${created.id}`, { slug: 'renamed-slug', confirmSlugChange: true });
    expect(moved.body.slug).toBe('renamed-slug');
    expectError(await jwt('PATCH', `${base}/${created.id}`, { slug: 'taken', confirmSlugChange: true }), 409);
  });

  it('deletes an agent (204), after which it is gone', async () => {
    const created = (await jwt('POST', base, draft())).body;
    expect((await jwt('DELETE', `${base}/${created.id}`)).status).toBe(204);
    expectError(await jwt('GET', `${base}/${created.id}`), 404);
    expectError(await jwt('DELETE', `${base}/${created.id}`), 404);
  });
});

describe('hosted agents: who may call', () => {
  it('answers 401 without a JWT, and to an API key', async () => {
    for (const auth of [null, t.liveKey]) {
      expectError(await t.request('GET', base, { auth }), 401);
      expectError(await t.request('POST', base, { auth, json: draft() }), 401);
    }
  });

  it('lets a member read but not write (403), and hides orgs and projects the account is not in (404)', async () => {
    expect(await jwt('GET', memberBase)).toMatchObject({ status: 200, body: { agents: [], hasMore: false } });
    expectError(await jwt('POST', memberBase, draft()), 403, /admin/);
    expectError(await jwt('GET', `/v1/orgs/${crypto.randomUUID()}/projects/${t.projectId}/agents`), 404);
    expectError(await jwt('GET', `/v1/orgs/${t.orgId}/projects/${crypto.randomUUID()}/agents`), 404);
    const foreignProject = memberBase.split('/')[5];
    expectError(await jwt('GET', `/v1/orgs/${t.orgId}/projects/${foreignProject}/agents`), 404);
  });
});
