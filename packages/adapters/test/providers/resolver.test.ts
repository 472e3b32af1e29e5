import { randomBytes, randomUUID } from 'node:crypto';
import { type Access, createModelResolver, createSecretBox, type KeyedProvider, type MetadataStore, type ModelResolverDeps } from '@dossier/core';
import { previewSecret } from '@dossier/core/internal';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelProviderFactory } from '../../src/providers/factory.ts';
import { createSqliteMetadataStore } from '../../src/sqlite/metadata-store.ts';
import { json, sentKey, startWireServer, type WireServer } from './wire-server.ts';

const secrets = createSecretBox(randomBytes(32));
const MANAGED_KEY = 'sk-ant-managed-0000000000000000';
const PROJECT_KEY = 'sk-ant-project-1111111111111111';
let anthropic: WireServer;
let store: MetadataStore;
let access: NonNullable<Access>;

beforeAll(async () => {
  anthropic = await startWireServer();
});
afterAll(() => anthropic.close());
beforeEach(async () => {
  store = createSqliteMetadataStore({ filename: ':memory:' });
  await store.migrate();
  const now = new Date().toISOString();
  const [accountId, orgId, projectId] = [randomUUID(), randomUUID(), randomUUID()];
  await store.createAccount({ id: accountId, email: `${accountId}@example.com`, passwordHash: 'x', createdAt: now });
  await store.createOrg({ id: orgId, name: 'Org', createdAt: now }, accountId, 'admin');
  await store.createProject({ id: projectId, orgId, name: 'Project', createdAt: now });
  access = { projectId, env: 'live' };
  anthropic.requests.length = 0;
});
afterEach(() => store.close());

async function addProjectKey(provider: KeyedProvider, key: string): Promise<string> {
  const id = randomUUID();
  await store.createProviderKey({
    id,
    projectId: access.projectId,
    env: access.env,
    provider,
    name: 'own',
    keyEncrypted: secrets.encrypt(key),
    keyPreview: previewSecret(key),
    createdAt: new Date().toISOString(),
  });
  return id;
}

const resolver = (over: Partial<ModelResolverDeps> = {}) =>
  createModelResolver({ store, secrets, factory: createModelProviderFactory(), managed: {}, ...over });

const reply = json(200, {
  id: 'm',
  type: 'message',
  role: 'assistant',
  model: 'x',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 1, output_tokens: 1 },
});

describe('model resolver', () => {
  it('throws not_configured naming every way to configure a provider when the project can reach none', async () => {
    const r = resolver();
    const err = await r.resolve(access, null, 'fast').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'DossierError', code: 'not_configured' });
    expect((err as Error).message).toBe(
      `No model provider is configured for this project: add a key with POST /v1/projects/${access.projectId}/provider-keys (provider_a or provider_b), ` +
        'or configure DOSSIER_ANTHROPIC_API_KEY / DOSSIER_OPENAI_API_KEY / DOSSIER_OLLAMA_CHAT_MODEL on the server',
    );
    expect(await r.hasProvider(access)).toBe(false);
  });

  it("uses the operator's managed key with provider_a's tier defaults when the project has no key", async () => {
    const r = resolver({ managed: { anthropic: { apiKey: MANAGED_KEY, baseUrl: anthropic.url } } });
    const fast = await r.resolve(access, null, 'fast');
    expect(fast).toMatchObject({ providerName: 'anthropic', model: 'claude-haiku-4-5', modelId: 'claude-haiku-4-5', keySource: 'managed' });
    expect(await r.resolve(access, null, 'best')).toMatchObject({ model: 'claude-sonnet-4-6', keySource: 'managed' });
    expect(await r.hasProvider(access)).toBe(true);
    anthropic.reply(reply);
    await fast.provider.chat({ model: fast.model, messages: [{ role: 'user', content: 'hi' }] });
    expect(sentKey(anthropic.requests[0])).toBe(MANAGED_KEY);
  });

  it("prefers the project's own key to the managed one, and falls back once it is deleted", async () => {
    const r = resolver({ managed: { anthropic: { apiKey: MANAGED_KEY, baseUrl: anthropic.url } } });
    const keyId = await addProjectKey('anthropic', PROJECT_KEY);
    const own = await r.resolve(access, 'claude-sonnet-4-6', 'fast');
    expect(own).toMatchObject({ providerName: 'anthropic', model: 'claude-sonnet-4-6', keySource: 'project' });
    anthropic.reply(reply);
    await own.provider.chat({ model: own.model, messages: [{ role: 'user', content: 'hi' }] });
    expect(sentKey(anthropic.requests[0])).toBe(PROJECT_KEY);
    await store.deleteProviderKey(keyId);
    expect(await r.resolve(access, null, 'fast')).toMatchObject({ keySource: 'managed' });
  });

  it("takes provider_b's defaults when the project's only key is an OpenAI one", async () => {
    await addProjectKey('openai', 'sk-proj-2222222222222222');
    const r = resolver();
    expect(await r.resolve(access, null, 'fast')).toMatchObject({ providerName: 'openai', model: 'gpt-4.1-mini', keySource: 'project' });
    expect(await r.resolve(access, null, 'best')).toMatchObject({ providerName: 'openai', model: 'gpt-4.1' });
    expect(await r.hasProvider(access)).toBe(true);
    expect(await r.hasProvider({ ...access, env: 'test' })).toBe(false); // the key is the live sandbox's only
  });

  it('counts a project key as a provider without unsealing it; using it says why it cannot', async () => {
    await addProjectKey('anthropic', PROJECT_KEY);
    const elsewhere = resolver({ secrets: createSecretBox(randomBytes(32)) }); // another server's master key
    expect(await elsewhere.hasProvider(access)).toBe(true);
    await expect(elsewhere.resolve(access, null, 'fast')).rejects.toMatchObject({ code: 'not_configured', message: /cannot be decrypted/ });
  });

  it('says which provider an explicit model needs when the project cannot reach it', async () => {
    const r = resolver({ managed: { anthropic: { apiKey: MANAGED_KEY } } });
    await expect(r.resolve(access, 'gpt-4.1', 'fast')).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringMatching(/provider_b \(OpenAI\).*DOSSIER_OPENAI_API_KEY/),
    });
    await expect(r.resolve(access, 'mistral-large', 'fast')).rejects.toMatchObject({ code: 'invalid_input', message: /claude-/ });
  });

  it('serves Ollama defaults only when a chat model is configured, and routes its bare names', async () => {
    const bare = resolver({ managed: { ollama: { baseUrl: 'http://127.0.0.1:11434' } } });
    expect(await bare.hasProvider(access)).toBe(false);
    expect(await bare.resolve(access, 'ollama:qwen2.5', 'fast')).toMatchObject({ providerName: 'ollama', model: 'qwen2.5', keySource: 'none' });
    const r = resolver({ managed: { ollama: { baseUrl: 'http://127.0.0.1:11434', fastModel: 'llama3.1' } }, ollamaModels: ['llama3.1'] });
    expect(await r.resolve(access, null, 'best')).toMatchObject({ providerName: 'ollama', model: 'llama3.1', modelId: 'ollama:llama3.1' });
    expect(await r.resolve(access, 'llama3.1', 'fast')).toMatchObject({ providerName: 'ollama', model: 'llama3.1', modelId: 'llama3.1' });
  });

  it('uses an operator tier model when the project can reach its provider, and the provider order otherwise', async () => {
    const r = resolver({ managed: { anthropic: { apiKey: MANAGED_KEY } }, tierModels: { fast: 'gpt-4.1-nano' } });
    expect(await r.resolve(access, null, 'fast')).toMatchObject({ model: 'claude-haiku-4-5' });
    await addProjectKey('openai', 'sk-proj-3333333333333333');
    expect(await r.resolve(access, null, 'fast')).toMatchObject({ providerName: 'openai', model: 'gpt-4.1-nano', keySource: 'project' });
    expect(() => resolver({ tierModels: { best: 'gemini-pro' } })).toThrow(/Unknown model 'gemini-pro'/);
  });

  it('says plainly when a stored key was sealed under another master key', async () => {
    await store.createProviderKey({
      id: randomUUID(),
      projectId: access.projectId,
      env: access.env,
      provider: 'openai',
      name: 'old',
      createdAt: new Date().toISOString(),
      keyEncrypted: createSecretBox(randomBytes(32)).encrypt('sk-proj-5555555555555555'),
      keyPreview: 'sk-p…5555',
    });
    await expect(resolver().resolve(access, 'gpt-4.1', 'fast')).rejects.toMatchObject({ code: 'not_configured', message: /cannot be decrypted/ });
  });

  it('tries the preferred provider first for defaults', async () => {
    await addProjectKey('anthropic', PROJECT_KEY);
    await addProjectKey('openai', 'sk-proj-4444444444444444');
    expect(await resolver().resolve(access, null, 'fast')).toMatchObject({ providerName: 'anthropic' });
    expect(await resolver({ preferredProvider: 'openai' }).resolve(access, null, 'fast')).toMatchObject({ providerName: 'openai' });
  });
});
