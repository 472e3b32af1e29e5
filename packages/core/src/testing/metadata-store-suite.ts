import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { METADATA_STORE_SPEC_VERSION } from '../ports/metadata-store.ts';
import type {
  Account,
  ApiKeyRecord,
  Collection,
  DocumentImageRecord,
  DocumentRecord,
  Org,
  Project,
  ProviderKeyRecord,
  ResearchSessionRecord,
  SectionRecord,
} from '../domain/types.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import { agentStoreTests } from './agent-store-suite.ts';
import { claimStoreTests } from './claim-store-suite.ts';
import { duplicateStoreTests } from './duplicate-store-suite.ts';
import { oauthStoreTests } from './oauth-store-suite.ts';
import { peopleStoreTests } from './people-store-suite.ts';
import { webhookStoreTests } from './webhook-store-suite.ts';
import { evaluationStoreTests } from './evaluation-store-suite.ts';
import { idempotencyStoreTests } from './idempotency-store-suite.ts';
import { sourceRecord } from './seed.ts';

export interface MetadataStoreSuiteOptions {
  /**
   * Makes a fresh persistent location and returns an opener for it; each call of the opener opens a new
   * store over the same data. Enables the reopen test (omit it for in-memory stores).
   */
  persistentLocation?: () => Promise<() => Promise<MetadataStore>>;
}

// Fixtures. Timestamps come from a clock that advances one second per record, so "oldest first" and
// "newest first" are decided by createdAt, never by insertion luck.
const T0 = Date.parse('2024-01-01T00:00:00.000Z');
let clock = 0;
const tick = (): string => new Date(T0 + ++clock * 1000).toISOString();
const uid = (prefix: string): string => `${prefix}_${randomUUID()}`;

function makeAccount(over: Partial<Account> = {}): Account {
  return { id: uid('acc'), email: `${uid('user')}@example.com`, passwordHash: 'hash', createdAt: tick(), ...over };
}

function makeOrg(over: Partial<Org> = {}): Org {
  return { id: uid('org'), name: 'Org', createdAt: tick(), ...over };
}

function makeProject(orgId: string, over: Partial<Project> = {}): Project {
  return { id: uid('prj'), orgId, name: 'Project', createdAt: tick(), ...over };
}

function makeApiKey(projectId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: uid('key'),
    projectId,
    env: 'live',
    keyHash: randomUUID().replaceAll('-', ''),
    keyEncrypted: 'ciphertext',
    keyPreview: 'dsk_live_ab',
    name: null,
    createdAt: tick(),
    lastUsedAt: null,
    revokedAt: null,
    ...over,
  };
}

function makeCollection(projectId: string, over: Partial<Collection> = {}): Collection {
  return {
    id: uid('col'),
    projectId,
    env: 'live',
    name: 'Handbook',
    visibility: 'private',
    description: null,
    chunkSize: 512,
    chunkOverlap: 64,
    embeddingModel: 'fake-embedder',
    embeddingDimension: 8,
    enableSummarization: true,
    enableCaptioning: false,
    enableReranking: true,
    enableDeduplication: false,
    suppressContradictionsByMetadata: false,
    suppressIntraDocumentContradictions: true,
    llmModel: null,
    instructions: null,
    queryExpansion: null,
    duplicateThreshold: null,
    createdAt: tick(),
    deletedAt: null,
    ...over,
  };
}

function makeDocument(collectionId: string, over: Partial<DocumentRecord> = {}): DocumentRecord {
  const createdAt = tick();
  return {
    id: uid('doc'),
    collectionId,
    filename: 'notes.md',
    contentType: 'text/markdown',
    status: 'ready',
    fileSizeBytes: 100,
    sectionCount: null,
    chunkCount: null,
    contentHash: null,
    storageKey: null,
    markdownStorageKey: null,
    derivedBytes: null,
    errorMessage: null,
    tags: [],
    metadata: {},
    chunkSize: 512,
    chunkOverlap: 64,
    canonical: true,
    createdAt,
    updatedAt: createdAt,
    sourcePath: null,
    sourceStamp: null,
    version: 1,
    deletedAt: null,
    ...over,
  };
}

function makeSection(doc: DocumentRecord, position: number, over: Partial<SectionRecord> = {}): SectionRecord {
  return {
    id: uid('sec'),
    documentId: doc.id,
    collectionId: doc.collectionId,
    title: `Section ${position}`,
    level: 2,
    position,
    summary: null,
    summaryType: null,
    chunkCount: 0,
    markdownOffsetStart: position * 100,
    markdownOffsetEnd: position * 100 + 99,
    ...over,
  };
}

/** An account that owns an org with one project. */
async function seedProject(store: MetadataStore): Promise<{ account: Account; org: Org; project: Project }> {
  const account = makeAccount();
  const org = makeOrg();
  const project = makeProject(org.id);
  await store.createAccount(account);
  await store.createOrg(org, account.id, 'admin');
  await store.createProject(project);
  return { account, org, project };
}

async function seedCollection(store: MetadataStore, over: Partial<Collection> = {}): Promise<Collection> {
  const { project } = await seedProject(store);
  const collection = makeCollection(project.id, over);
  await store.insertCollection(collection);
  return collection;
}

/** Insert in order; the result keeps the tuple type, so destructured documents are never undefined. */
async function insertDocuments<T extends DocumentRecord[]>(store: MetadataStore, docs: [...T]): Promise<T> {
  for (const doc of docs) await store.insertDocument(doc);
  return docs;
}

const ids = (records: { id: string }[]): string[] => records.map((r) => r.id);
const sortedIds = (records: { id: string }[]): string[] => ids(records).sort();

/**
 * The conformance suite every MetadataStore adapter runs. `factory` returns a new, empty store (migrated or
 * not: the suite calls migrate()); each test closes the store it used.
 */
export function metadataStoreSuite(name: string, factory: () => Promise<MetadataStore>, opts: MetadataStoreSuiteOptions = {}): void {
  describe(`MetadataStore conformance (spec ${METADATA_STORE_SPEC_VERSION}): ${name}`, () => {
    const ctx = { store: undefined as unknown as MetadataStore };
    beforeEach(async () => {
      ctx.store = await factory();
      await ctx.store.migrate();
    });
    afterEach(async () => {
      await ctx.store.close();
    });

    migrationTests(ctx);
    tenancyTests(ctx);
    collectionTests(ctx);
    documentTests(ctx);
    documentFilterTests(ctx);
    documentUpdateTests(ctx);
    sectionTests(ctx);
    countTests(ctx);
    providerKeyTests(ctx);
    researchTests(ctx);
    usageTests(ctx);
    imageTests(ctx);
    enrichTests(ctx);
    claimStoreTests(() => ctx.store);
    duplicateStoreTests(() => ctx.store);
    agentStoreTests(() => ctx.store);
    webhookStoreTests(() => ctx.store);
    evaluationStoreTests(() => ctx.store);
    oauthStoreTests(() => ctx.store);
    idempotencyStoreTests(() => ctx.store);
    peopleStoreTests(() => ctx.store);
    sourceLockTests(ctx);
    const persistentLocation = opts.persistentLocation;
    if (persistentLocation) persistenceTests(persistentLocation);
  });
}

interface SuiteContext {
  store: MetadataStore;
}

function migrationTests(ctx: SuiteContext): void {
  describe('migrations', () => {
    it('migrating an already migrated store again succeeds and keeps its data', async () => {
      const account = makeAccount();
      await ctx.store.createAccount(account);
      await ctx.store.migrate();
      await ctx.store.migrate();
      expect(await ctx.store.findAccountByEmail(account.email)).toEqual(account);
    });

    it('reports its size in bytes as a non-negative integer', async () => {
      await seedCollection(ctx.store);
      const size = await ctx.store.sizeBytes();
      expect(Number.isInteger(size)).toBe(true);
      expect(size).toBeGreaterThanOrEqual(0);
    });
  });
}

function tenancyTests(ctx: SuiteContext): void {
  describe('accounts, orgs, projects and api keys', () => {
    it('finds an account by email whatever the case of the query', async () => {
      const account = makeAccount({ email: 'Ada.Lovelace@Example.com' });
      await ctx.store.createAccount(account);
      expect(await ctx.store.findAccountByEmail('ada.lovelace@example.com')).toEqual(account);
      expect(await ctx.store.findAccountByEmail('ADA.LOVELACE@EXAMPLE.COM')).toEqual(account);
      expect(await ctx.store.findAccountByEmail('someone@example.com')).toBeNull();
    });

    it('rejects a second account whose email differs only in case with a conflict error', async () => {
      await ctx.store.createAccount(makeAccount({ email: 'grace@example.com' }));
      await expect(ctx.store.createAccount(makeAccount({ email: 'GRACE@example.com' }))).rejects.toMatchObject({
        name: 'DossierError',
        code: 'conflict',
      });
    });

    it('lists the orgs an account belongs to, oldest first, with its role in each', async () => {
      const account = makeAccount();
      const other = makeAccount();
      await ctx.store.createAccount(account);
      await ctx.store.createAccount(other);
      const first = makeOrg({ name: 'First' });
      const second = makeOrg({ name: 'Second' });
      const foreign = makeOrg({ name: 'Foreign' });
      await ctx.store.createOrg(second, account.id, 'member');
      await ctx.store.createOrg(first, account.id, 'admin');
      await ctx.store.createOrg(foreign, other.id, 'admin');
      expect(await ctx.store.listOrgsForAccount(account.id)).toEqual([first, second]);
      expect(await ctx.store.getMembershipRole(first.id, account.id)).toBe('admin');
      expect(await ctx.store.getMembershipRole(second.id, account.id)).toBe('member');
      expect(await ctx.store.getMembershipRole(foreign.id, account.id)).toBeNull();
      await ctx.store.setMembership(foreign.id, account.id, 'member');
      expect(await ctx.store.getMembershipRole(foreign.id, account.id)).toBe('member');
      await ctx.store.setMembership(foreign.id, account.id, 'admin');
      expect(await ctx.store.getMembershipRole(foreign.id, account.id)).toBe('admin');
    });

    it('gets a project by id and lists only its org projects, oldest first', async () => {
      const { org, project } = await seedProject(ctx.store);
      const later = makeProject(org.id, { name: 'Later' });
      await ctx.store.createProject(later);
      await seedProject(ctx.store);
      expect(await ctx.store.getProject(later.id)).toEqual(later);
      expect(await ctx.store.getProject('missing')).toBeNull();
      expect(await ctx.store.listProjects(org.id)).toEqual([project, later]);
    });

    it('finds an api key by its hash', async () => {
      const { project } = await seedProject(ctx.store);
      const key = makeApiKey(project.id, { env: 'test' });
      await ctx.store.createApiKey(key);
      expect(await ctx.store.findApiKeyByHash(key.keyHash)).toEqual(key);
      expect(await ctx.store.findApiKeyByHash('0'.repeat(64))).toBeNull();
    });

    it('does not find a revoked api key by its hash', async () => {
      const { project } = await seedProject(ctx.store);
      const key = makeApiKey(project.id, { revokedAt: tick() });
      await ctx.store.createApiKey(key);
      expect(await ctx.store.findApiKeyByHash(key.keyHash)).toBeNull();
    });

    it("lists a project's keys newest first, revokes one for good and records last use", async () => {
      const { project } = await seedProject(ctx.store);
      const older = makeApiKey(project.id, { name: 'ci' });
      const newer = makeApiKey(project.id, { env: 'test' });
      await ctx.store.createApiKey(older);
      await ctx.store.createApiKey(newer);
      expect(await ctx.store.listApiKeys(project.id)).toEqual([newer, older]);
      const revokedAt = tick();
      await ctx.store.revokeApiKey(older.id, revokedAt);
      await ctx.store.revokeApiKey(older.id, tick());
      expect(await ctx.store.getApiKey(older.id)).toEqual({ ...older, revokedAt });
      expect(await ctx.store.findApiKeyByHash(older.keyHash)).toBeNull();
      const usedAt = tick();
      await ctx.store.touchApiKey(newer.id, usedAt);
      expect((await ctx.store.getApiKey(newer.id))?.lastUsedAt).toBe(usedAt);
      expect(await ctx.store.getApiKey(uid('missing'))).toBeNull();
    });

    it('spends a meter only while the cap allows, also when spenders race', async () => {
      const { project } = await seedProject(ctx.store);
      const since = '2024-01-01T00:00:00.000Z';
      const at = '2024-05-01T00:00:00.000Z';
      const spent = await Promise.all(Array.from({ length: 8 }, () => ctx.store.spendIfRoom(project.id, 'live', 'credits', 1, 3, since, at)));
      expect(spent.filter(Boolean)).toHaveLength(3);
      expect((await ctx.store.usageTotals(project.id, 'live', since)).credits).toBe(3);
      expect(await ctx.store.spendIfRoom(project.id, 'live', 'credits', 5, null, since, at)).toBe(true);
      expect(await ctx.store.spendIfRoom(project.id, 'test', 'credits', 1, 3, since, at)).toBe(true);
    });

    it('renames and deletes orgs and projects, lists and removes members, keeps passwords and token epochs', async () => {
      const { org, project } = await seedProject(ctx.store);
      const account = makeAccount();
      await ctx.store.createAccount(account);
      expect(await ctx.store.getAccount(account.id)).toEqual(account);
      await ctx.store.setPasswordHash(account.id, 'new-hash');
      expect((await ctx.store.getAccount(account.id))?.passwordHash).toBe('new-hash');
      expect(await ctx.store.getTokenEpoch(account.id)).toBeNull();
      await ctx.store.setTokenEpoch(account.id, 'epoch-2');
      expect(await ctx.store.getTokenEpoch(account.id)).toBe('epoch-2');
      await ctx.store.setMembership(org.id, account.id, 'member');
      expect((await ctx.store.listMembers(org.id)).map((m) => [m.email, m.role])).toContainEqual([account.email, 'member']);
      await ctx.store.removeMembership(org.id, account.id);
      expect((await ctx.store.listMembers(org.id)).map((m) => m.accountId)).not.toContain(account.id);
      expect(await ctx.store.renameOrg(org.id, 'Renamed')).toEqual({ ...org, name: 'Renamed' });
      expect(await ctx.store.renameProject(project.id, 'Renamed')).toEqual({ ...project, name: 'Renamed' });
      expect(await ctx.store.renameOrg(uid('missing'), 'x')).toBeNull();
      const key = makeApiKey(project.id);
      await ctx.store.createApiKey(key);
      await ctx.store.deleteProject(project.id);
      expect(await ctx.store.getProject(project.id)).toBeNull();
      expect(await ctx.store.getApiKey(key.id)).toBeNull();
      await ctx.store.deleteOrg(org.id);
      expect(await ctx.store.getOrg(org.id)).toBeNull();
    });

    it('keeps org keys: found by hash until revoked, listed per org', async () => {
      const { org } = await seedProject(ctx.store);
      const { org: other } = await seedProject(ctx.store);
      const key = {
        id: uid('ok'),
        orgId: org.id,
        name: 'backend',
        keyHash: randomUUID(),
        keyEncrypted: 'c',
        keyPreview: 'dsk_…abcd',
        createdAt: tick(),
        lastUsedAt: null,
        revokedAt: null,
      };
      await ctx.store.createOrgApiKey(key);
      await ctx.store.createOrgApiKey({ ...key, id: uid('ok'), orgId: other.id, keyHash: randomUUID() });
      expect(await ctx.store.findOrgApiKeyByHash(key.keyHash)).toEqual(key);
      expect(await ctx.store.listOrgApiKeys(org.id)).toEqual([key]);
      expect(await ctx.store.getOrgApiKey(key.id)).toEqual(key);
      const at = tick();
      await ctx.store.touchApiKey(key.id, at);
      await ctx.store.revokeApiKey(key.id, at);
      expect(await ctx.store.findOrgApiKeyByHash(key.keyHash)).toBeNull();
      expect(await ctx.store.getOrgApiKey(key.id)).toEqual({ ...key, lastUsedAt: at, revokedAt: at });
    });
  });
}

function collectionTests(ctx: SuiteContext): void {
  describe('collections', () => {
    it('returns an inserted collection with every field intact', async () => {
      const collection = await seedCollection(ctx.store, {
        description: 'Policies',
        llmModel: 'gpt-test',
        instructions: 'Be brief.',
        queryExpansion: 'rm3',
        embeddingDimension: null,
      });
      expect(await ctx.store.getCollection(collection.id)).toEqual(collection);
      expect(await ctx.store.getCollection('missing')).toBeNull();
    });

    it('lists the live collections of one project environment, oldest first, without soft-deleted ones', async () => {
      const { project } = await seedProject(ctx.store);
      const { project: otherProject } = await seedProject(ctx.store);
      const a = makeCollection(project.id, { name: 'a' });
      const b = makeCollection(project.id, { name: 'b' });
      const testEnv = makeCollection(project.id, { name: 'test', env: 'test' });
      const deleted = makeCollection(project.id, { name: 'deleted', deletedAt: tick() });
      const foreign = makeCollection(otherProject.id, { name: 'foreign' });
      for (const c of [b, testEnv, deleted, foreign, a].reverse()) await ctx.store.insertCollection(c);
      expect(await ctx.store.listCollections(project.id, 'live')).toEqual([a, b]);
      expect(await ctx.store.listCollections(project.id, 'test')).toEqual([testEnv]);
    });

    it('still returns a soft-deleted collection by id', async () => {
      const collection = await seedCollection(ctx.store, { deletedAt: tick() });
      expect(await ctx.store.getCollection(collection.id)).toEqual(collection);
    });

    it('applies only the patched fields and returns the updated collection', async () => {
      const collection = await seedCollection(ctx.store);
      const patch = { name: 'Renamed', enableReranking: false, description: 'Now described', chunkSize: 256 };
      const updated = await ctx.store.updateCollection(collection.id, patch);
      expect(updated).toEqual({ ...collection, ...patch });
      expect(await ctx.store.getCollection(collection.id)).toEqual(updated);
    });

    it('clears a nullable collection field patched to null and soft-deletes through deletedAt', async () => {
      const collection = await seedCollection(ctx.store, { instructions: 'Old', llmModel: 'model' });
      const deletedAt = tick();
      const updated = await ctx.store.updateCollection(collection.id, { instructions: null, deletedAt });
      expect(updated).toEqual({ ...collection, instructions: null, deletedAt });
      expect(await ctx.store.listCollections(collection.projectId, 'live')).toEqual([]);
    });

    it('throws not_found when updating an unknown collection', async () => {
      await expect(ctx.store.updateCollection('missing', { name: 'x' })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });
}

function documentTests(ctx: SuiteContext): void {
  describe('documents', () => {
    it('returns an inserted document with tags, metadata and flags intact', async () => {
      const collection = await seedCollection(ctx.store);
      const doc = makeDocument(collection.id, {
        tags: ['hr', 'policy'],
        metadata: { team: 'ops', year: 2024, draft: false, owner: { name: 'Ada', ids: [1, 2] }, note: null },
        canonical: false,
        contentHash: 'abc',
        sectionCount: 3,
        chunkCount: 9,
      });
      await ctx.store.insertDocument(doc);
      expect(await ctx.store.getDocument(doc.id)).toEqual(doc);
      expect(await ctx.store.getDocument('missing')).toBeNull();
    });

    it('finds live documents by source path and pages the source manifest by path (issue 43)', async () => {
      const collection = await seedCollection(ctx.store);
      const other = await seedCollection(ctx.store);
      const [b, a, gone] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { sourcePath: 'dir/b.md', contentHash: 'sha256:b', version: 3 }),
        makeDocument(collection.id, { sourcePath: 'a.md', sourceStamp: '12:34' }),
        makeDocument(collection.id, { sourcePath: 'c.md', deletedAt: '2024-01-01T00:00:00.000Z' }),
        makeDocument(collection.id),
        makeDocument(other.id, { sourcePath: 'a.md' }),
      ]);
      expect((await ctx.store.findDocumentBySourcePath(collection.id, 'dir/b.md'))?.id).toBe(b!.id);
      expect(await ctx.store.findDocumentBySourcePath(collection.id, 'c.md')).toBeNull();
      const page = await ctx.store.listSourceManifest(collection.id, null, 10);
      expect(page).toEqual([
        { path: 'a.md', hash: null, stamp: '12:34', documentId: a!.id, version: 1, status: 'ready', updatedAt: a!.updatedAt },
        { path: 'dir/b.md', hash: 'sha256:b', stamp: null, documentId: b!.id, version: 3, status: 'ready', updatedAt: b!.updatedAt },
      ]);
      expect((await ctx.store.listSourceManifest(collection.id, 'a.md', 10)).map((e) => e.path)).toEqual(['dir/b.md']);
      expect((await ctx.store.listSourceManifest(collection.id, null, 10, 'dir/')).map((e) => e.path)).toEqual(['dir/b.md']);
      expect(ids(await ctx.store.listSoftDeletedDocuments('2030-01-01T00:00:00.000Z', 10))).toContain(gone!.id);
      expect(await ctx.store.listDocuments(collection.id, { limit: 10, offset: 0 })).toMatchObject({ total: 3 });
    });

    it('gets documents by ids, skipping ids that do not exist', async () => {
      const collection = await seedCollection(ctx.store);
      const docs = await insertDocuments(ctx.store, [makeDocument(collection.id), makeDocument(collection.id)]);
      const found = await ctx.store.getDocuments([...ids(docs), 'missing']);
      expect(sortedIds(found)).toEqual(sortedIds(docs));
      expect(await ctx.store.getDocuments([])).toEqual([]);
    });

    it('lists a page of documents newest first with the total count of the collection', async () => {
      const collection = await seedCollection(ctx.store);
      const docs = await insertDocuments(
        ctx.store,
        Array.from({ length: 5 }, (_, i) => makeDocument(collection.id, { filename: `f${i}.md` })),
      );
      const other = await seedCollection(ctx.store);
      await ctx.store.insertDocument(makeDocument(other.id));
      const newestFirst = [...docs].reverse();
      const page = await ctx.store.listDocuments(collection.id, { limit: 2, offset: 1 });
      expect(page.total).toBe(5);
      expect(page.documents).toEqual(newestFirst.slice(1, 3));
      const tail = await ctx.store.listDocuments(collection.id, { limit: 10, offset: 4 });
      expect(tail).toEqual({ documents: newestFirst.slice(4), total: 5 });
    });

    it('filters the list by status and counts only matching documents in the total', async () => {
      const collection = await seedCollection(ctx.store);
      const [, failedOld, , failedNew] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { status: 'ready' }),
        makeDocument(collection.id, { status: 'error', errorMessage: 'bad' }),
        makeDocument(collection.id, { status: 'processing' }),
        makeDocument(collection.id, { status: 'error', errorMessage: 'worse' }),
      ]);
      const page = await ctx.store.listDocuments(collection.id, { status: 'error', limit: 1, offset: 0 });
      expect(page).toEqual({ documents: [failedNew], total: 2 });
      const next = await ctx.store.listDocuments(collection.id, { status: 'error', limit: 1, offset: 1 });
      expect(next.documents).toEqual([failedOld]);
    });

    it('filters the list by tags (all of tags, one of anyTags), with status, counting only matches (issue 34)', async () => {
      const collection = await seedCollection(ctx.store);
      const [both, financeOnly, legalOnly, failedBoth] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { tags: ['finance', '2024'] }),
        makeDocument(collection.id, { tags: ['finance'] }),
        makeDocument(collection.id, { tags: ['legal'] }),
        makeDocument(collection.id, { tags: ['finance', '2024'], status: 'error', errorMessage: 'bad' }),
        makeDocument(collection.id, { tags: [] }),
      ]);
      const list = (q: { tags?: string[]; anyTags?: string[]; status?: 'error' }) => ctx.store.listDocuments(collection.id, { limit: 10, offset: 0, ...q });
      expect(sortedIds((await list({ tags: ['finance'] })).documents)).toEqual(sortedIds([both!, financeOnly!, failedBoth!]));
      expect(sortedIds((await list({ tags: ['finance', '2024'] })).documents)).toEqual(sortedIds([both!, failedBoth!]));
      expect(sortedIds((await list({ anyTags: ['legal', '2024'] })).documents)).toEqual(sortedIds([both!, legalOnly!, failedBoth!]));
      expect(await list({ tags: ['finance'], anyTags: ['2024'], status: 'error' })).toEqual({ documents: [failedBoth], total: 1 });
      expect(await list({ tags: ['nobody'] })).toEqual({ documents: [], total: 0 });
      const page = await ctx.store.listDocuments(collection.id, { tags: ['finance'], limit: 1, offset: 1 });
      expect(page).toEqual({ documents: [financeOnly], total: 3 });
    });

    it('returns the oldest document with a content hash, ignoring error documents and other collections', async () => {
      const collection = await seedCollection(ctx.store);
      const other = await seedCollection(ctx.store);
      const [, oldest] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { contentHash: 'h1', status: 'error' }),
        makeDocument(collection.id, { contentHash: 'h1', status: 'processing' }),
        makeDocument(collection.id, { contentHash: 'h1', status: 'ready' }),
        makeDocument(other.id, { contentHash: 'h2' }),
      ]);
      expect(await ctx.store.findDocumentByHash(collection.id, 'h1')).toEqual(oldest);
      expect(await ctx.store.findDocumentByHash(collection.id, 'h2')).toBeNull();
    });

    it('finds no document by hash when every match is an error document', async () => {
      const collection = await seedCollection(ctx.store);
      await ctx.store.insertDocument(makeDocument(collection.id, { contentHash: 'h', status: 'error' }));
      expect(await ctx.store.findDocumentByHash(collection.id, 'h')).toBeNull();
    });

    it('deletes a document together with its sections and nothing else', async () => {
      const collection = await seedCollection(ctx.store);
      const [doomed, kept] = await insertDocuments(ctx.store, [makeDocument(collection.id), makeDocument(collection.id)]);
      const doomedSections = [makeSection(doomed, 0), makeSection(doomed, 1)];
      const keptSections = [makeSection(kept, 0)];
      await ctx.store.replaceSections(doomed.id, doomedSections);
      await ctx.store.replaceSections(kept.id, keptSections);
      await ctx.store.deleteDocument(doomed.id);
      expect(await ctx.store.getDocument(doomed.id)).toBeNull();
      expect(await ctx.store.listSections(doomed.id)).toEqual([]);
      expect(await ctx.store.getSections(ids(doomedSections))).toEqual([]);
      expect(await ctx.store.getDocument(kept.id)).toEqual(kept);
      expect(await ctx.store.listSections(kept.id)).toEqual(keptSections);
    });

    it('counts documents per tag, sorted by count descending then name', async () => {
      const collection = await seedCollection(ctx.store);
      const other = await seedCollection(ctx.store);
      await insertDocuments(ctx.store, [
        makeDocument(collection.id, { tags: ['beta', 'alpha'] }),
        makeDocument(collection.id, { tags: ['gamma', 'beta'] }),
        makeDocument(collection.id, { tags: ['alpha', 'beta', 'delta'] }),
        makeDocument(collection.id, { tags: [] }),
        makeDocument(other.id, { tags: ['delta', 'zeta'] }),
      ]);
      expect(await ctx.store.tagCounts(collection.id)).toEqual([
        { name: 'beta', count: 3 },
        { name: 'alpha', count: 2 },
        { name: 'delta', count: 1 },
        { name: 'gamma', count: 1 },
      ]);
    });

    it('reports metadata only once a document of the collection has a non-empty metadata object', async () => {
      const collection = await seedCollection(ctx.store);
      const other = await seedCollection(ctx.store);
      await ctx.store.insertDocument(makeDocument(collection.id, { tags: ['x'] }));
      await ctx.store.insertDocument(makeDocument(other.id, { metadata: { team: 'ops' } }));
      expect(await ctx.store.hasMetadata(collection.id)).toBe(false);
      await ctx.store.insertDocument(makeDocument(collection.id, { metadata: { team: 'ops' } }));
      expect(await ctx.store.hasMetadata(collection.id)).toBe(true);
    });
  });
}

function documentFilterTests(ctx: SuiteContext): void {
  describe('document filters', () => {
    let collection: Collection;
    const find = async (filter: Parameters<MetadataStore['findDocuments']>[1]) => sortedIds(await ctx.store.findDocuments(collection.id, filter));
    beforeEach(async () => {
      collection = await seedCollection(ctx.store);
    });

    it('returns every document of the collection for an empty filter', async () => {
      const docs = await insertDocuments(ctx.store, [makeDocument(collection.id), makeDocument(collection.id)]);
      const other = await seedCollection(ctx.store);
      await ctx.store.insertDocument(makeDocument(other.id));
      expect(await find({})).toEqual(sortedIds(docs));
      expect(await find({ tags: [], anyTags: [], metadata: {} })).toEqual(sortedIds(docs));
    });

    it('requires every tag listed in tags', async () => {
      const [both] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { tags: ['hr', 'policy', 'eu'] }),
        makeDocument(collection.id, { tags: ['hr'] }),
        makeDocument(collection.id, { tags: ['policy'] }),
      ]);
      expect(await find({ tags: ['hr', 'policy'] })).toEqual(sortedIds([both]));
    });

    it('requires at least one tag listed in anyTags', async () => {
      const [hr, policy] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { tags: ['hr'] }),
        makeDocument(collection.id, { tags: ['policy', 'eu'] }),
        makeDocument(collection.id, { tags: ['finance'] }),
        makeDocument(collection.id, { tags: [] }),
      ]);
      expect(await find({ anyTags: ['hr', 'policy'] })).toEqual(sortedIds([hr, policy]));
    });

    it('matches metadata only when every given top-level pair is present and equal', async () => {
      const [match] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { metadata: { team: 'ops', region: 'eu', extra: 1 } }),
        makeDocument(collection.id, { metadata: { team: 'ops', region: 'us' } }),
        makeDocument(collection.id, { metadata: { team: 'ops' } }),
        makeDocument(collection.id, { metadata: {} }),
      ]);
      expect(await find({ metadata: { team: 'ops', region: 'eu' } })).toEqual(sortedIds([match]));
    });

    it('compares nested metadata values by deep equality, whatever their key order', async () => {
      const [match] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { metadata: { owner: { name: 'Ada', tags: ['a', 'b'], n: 1.5 } } }),
        makeDocument(collection.id, { metadata: { owner: { name: 'Ada', tags: ['b', 'a'], n: 1.5 } } }),
        makeDocument(collection.id, { metadata: { owner: { name: 'Ada', tags: ['a', 'b'] } } }),
        makeDocument(collection.id, { metadata: { owner: { name: 'Ada', tags: ['a', 'b'], n: 1.5, x: 0 } } }),
      ]);
      expect(await find({ metadata: { owner: { n: 1.5, tags: ['a', 'b'], name: 'Ada' } } })).toEqual(sortedIds([match]));
    });

    it('keeps numbers, strings, booleans and null distinct in metadata filters', async () => {
      const [num, str, bool, nul] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { metadata: { v: 1 } }),
        makeDocument(collection.id, { metadata: { v: '1' } }),
        makeDocument(collection.id, { metadata: { v: true } }),
        makeDocument(collection.id, { metadata: { v: null } }),
        makeDocument(collection.id, { metadata: {} }),
      ]);
      expect(await find({ metadata: { v: 1 } })).toEqual([num.id]);
      expect(await find({ metadata: { v: '1' } })).toEqual([str.id]);
      expect(await find({ metadata: { v: true } })).toEqual([bool.id]);
      expect(await find({ metadata: { v: null } })).toEqual([nul.id]);
      expect(await find({ metadata: { v: false } })).toEqual([]);
    });

    it('combines tags, anyTags and metadata so a document must satisfy all of them', async () => {
      const [match] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { tags: ['hr', 'eu'], metadata: { year: 2024 } }),
        makeDocument(collection.id, { tags: ['hr', 'eu'], metadata: { year: 2023 } }),
        makeDocument(collection.id, { tags: ['hr', 'us'], metadata: { year: 2024 } }),
        makeDocument(collection.id, { tags: ['eu'], metadata: { year: 2024 } }),
      ]);
      expect(await find({ tags: ['hr'], anyTags: ['eu', 'uk'], metadata: { year: 2024 } })).toEqual(sortedIds([match]));
    });
  });
}

function documentUpdateTests(ctx: SuiteContext): void {
  describe('document updates', () => {
    it('applies a patch, keeps the other fields and sets a new updatedAt', async () => {
      const collection = await seedCollection(ctx.store);
      const doc = makeDocument(collection.id, { status: 'processing', contentHash: 'h' });
      await ctx.store.insertDocument(doc);
      const updated = await ctx.store.updateDocument(doc.id, { status: 'ready', sectionCount: 4, chunkCount: 12 });
      const expected = { ...doc, status: 'ready', sectionCount: 4, chunkCount: 12, updatedAt: updated.updatedAt };
      expect(updated).toEqual(expected);
      expect(updated.updatedAt).not.toBe(doc.updatedAt);
      expect(Number.isNaN(Date.parse(updated.updatedAt))).toBe(false);
      expect(await ctx.store.getDocument(doc.id)).toEqual(updated);
    });

    it('round-trips tags, metadata and the canonical flag through an update', async () => {
      const collection = await seedCollection(ctx.store);
      const doc = makeDocument(collection.id, { tags: ['old'], metadata: { a: 1 } });
      await ctx.store.insertDocument(doc);
      const patch = { tags: ['new', 'more'], metadata: { b: { c: [1, 'two', false] } }, canonical: false };
      const updated = await ctx.store.updateDocument(doc.id, patch);
      expect(updated).toMatchObject(patch);
      expect(await ctx.store.getDocument(doc.id)).toMatchObject(patch);
      expect(await ctx.store.findDocuments(collection.id, { tags: ['old'] })).toEqual([]);
      expect(ids(await ctx.store.findDocuments(collection.id, { metadata: { b: { c: [1, 'two', false] } } }))).toEqual([doc.id]);
    });

    it('clears a nullable document field patched to null', async () => {
      const collection = await seedCollection(ctx.store);
      const doc = makeDocument(collection.id, { status: 'error', errorMessage: 'boom' });
      await ctx.store.insertDocument(doc);
      const updated = await ctx.store.updateDocument(doc.id, { status: 'pending', errorMessage: null });
      expect(updated.errorMessage).toBeNull();
      expect(updated.status).toBe('pending');
    });

    it('throws not_found when updating an unknown document', async () => {
      await expect(ctx.store.updateDocument('missing', { status: 'ready' })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });
}

function sectionTests(ctx: SuiteContext): void {
  describe('sections', () => {
    let doc: DocumentRecord;
    beforeEach(async () => {
      const collection = await seedCollection(ctx.store);
      doc = makeDocument(collection.id);
      await ctx.store.insertDocument(doc);
    });

    it('lists the sections of a document ordered by position', async () => {
      const first = makeSection(doc, 0);
      const second = makeSection(doc, 1, { summary: 'About it', summaryType: 'generated', chunkCount: 3 });
      const third = makeSection(doc, 2);
      await ctx.store.replaceSections(doc.id, [third, first, second]);
      expect(await ctx.store.listSections(doc.id)).toEqual([first, second, third]);
    });

    it('replacing sections twice with the same rows leaves exactly one copy of each', async () => {
      const sections = [makeSection(doc, 0), makeSection(doc, 1)];
      await ctx.store.replaceSections(doc.id, sections);
      await ctx.store.replaceSections(doc.id, sections);
      expect(await ctx.store.listSections(doc.id)).toEqual(sections);
    });

    it('replacing sections removes the old ones and leaves other documents untouched', async () => {
      const neighbour = makeDocument(doc.collectionId);
      await ctx.store.insertDocument(neighbour);
      const neighbourSections = [makeSection(neighbour, 0)];
      await ctx.store.replaceSections(neighbour.id, neighbourSections);
      const old = [makeSection(doc, 0), makeSection(doc, 1), makeSection(doc, 2)];
      await ctx.store.replaceSections(doc.id, old);
      const fresh = [makeSection(doc, 0, { title: 'Only' })];
      await ctx.store.replaceSections(doc.id, fresh);
      expect(await ctx.store.listSections(doc.id)).toEqual(fresh);
      expect(await ctx.store.getSections(ids(old))).toEqual([]);
      expect(await ctx.store.listSections(neighbour.id)).toEqual(neighbourSections);
      await ctx.store.replaceSections(doc.id, []);
      expect(await ctx.store.listSections(doc.id)).toEqual([]);
    });

    it('sets chunk counts of the named sections only', async () => {
      const [a, b, c] = [makeSection(doc, 0), makeSection(doc, 1), makeSection(doc, 2)];
      await ctx.store.replaceSections(doc.id, [a, b, c]);
      await ctx.store.setSectionChunkCounts({ [a.id]: 4, [c.id]: 7 });
      const counts = (await ctx.store.listSections(doc.id)).map((s) => s.chunkCount);
      expect(counts).toEqual([4, 0, 7]);
    });

    it('gets sections by ids, skipping ids that do not exist', async () => {
      const [a, b, c] = [makeSection(doc, 0), makeSection(doc, 1), makeSection(doc, 2)];
      await ctx.store.replaceSections(doc.id, [a, b, c]);
      const wanted = [c, a];
      const found = await ctx.store.getSections([...ids(wanted), 'missing']);
      expect([...found].sort((x, y) => x.id.localeCompare(y.id))).toEqual([...wanted].sort((x, y) => x.id.localeCompare(y.id)));
      expect(await ctx.store.getSections([])).toEqual([]);
    });
  });
}

function countTests(ctx: SuiteContext): void {
  describe('collection counts', () => {
    it('counts an empty collection as zeros with no statuses', async () => {
      const collection = await seedCollection(ctx.store);
      expect(await ctx.store.collectionCounts(collection.id)).toEqual({
        docCount: 0,
        totalFileSizeBytes: 0,
        storageBytes: 0,
        totalSections: 0,
        totalChunks: 0,
        statusCounts: {},
        summarizedCount: 0,
        captionedCount: 0,
      });
    });

    it('aggregates documents, bytes, sections, chunks, present statuses and summarized ready documents', async () => {
      const collection = await seedCollection(ctx.store);
      const other = await seedCollection(ctx.store);
      const [summarized, extractive, processing] = await insertDocuments(ctx.store, [
        makeDocument(collection.id, { status: 'ready', fileSizeBytes: 100, chunkCount: 5, derivedBytes: 40 }),
        makeDocument(collection.id, { status: 'ready', fileSizeBytes: 50, chunkCount: 3, derivedBytes: 2 }),
        makeDocument(collection.id, { status: 'processing', fileSizeBytes: null, chunkCount: null }),
        makeDocument(collection.id, { status: 'error', fileSizeBytes: 10, chunkCount: null }),
        makeDocument(other.id, { status: 'ready', fileSizeBytes: 1000, chunkCount: 99 }),
      ]);
      const generated = { summary: 'AI', summaryType: 'generated' as const };
      const extractiveSummary = { summary: 'x', summaryType: 'extractive' as const };
      const summarizedSections = [makeSection(summarized, 0), makeSection(summarized, 1, generated)];
      await ctx.store.replaceSections(summarized.id, summarizedSections);
      await ctx.store.replaceSections(extractive.id, [makeSection(extractive, 0, extractiveSummary)]);
      await ctx.store.replaceSections(processing.id, [makeSection(processing, 0, generated)]);
      expect(await ctx.store.collectionCounts(collection.id)).toEqual({
        docCount: 4,
        totalFileSizeBytes: 160,
        storageBytes: 202, // uploads plus what was derived from them
        totalSections: 4,
        totalChunks: 8,
        statusCounts: { ready: 2, processing: 1, error: 1 },
        summarizedCount: 1,
        captionedCount: 0,
      });
    });
  });
}

function persistenceTests(persistentLocation: () => Promise<() => Promise<MetadataStore>>): void {
  describe('persistence', () => {
    it('a store reopened from the same location keeps its data', async () => {
      const open = await persistentLocation();
      const first = await open();
      await first.migrate();
      const collection = await seedCollection(first);
      const doc = makeDocument(collection.id, { tags: ['kept'], metadata: { n: 1 } });
      await first.insertDocument(doc);
      const sections = [makeSection(doc, 0), makeSection(doc, 1)];
      await first.replaceSections(doc.id, sections);
      await first.close();

      const second = await open();
      try {
        await second.migrate();
        expect(await second.getCollection(collection.id)).toEqual(collection);
        expect(await second.getDocument(doc.id)).toEqual(doc);
        expect(await second.listSections(doc.id)).toEqual(sections);
      } finally {
        await second.close();
      }
    });
  });
}

function makeResearchSession(collectionId: string, over: Partial<ResearchSessionRecord> = {}): ResearchSessionRecord {
  return {
    id: uid('res'),
    collectionId,
    query: 'What changed in 2024?',
    response: 'Revenue grew [S1].',
    depth: 'balanced',
    model: 'scripted:fast',
    sources: [
      {
        chunkId: uid('chk'),
        content: 'Revenue grew in every quarter.',
        documentId: uid('doc'),
        filename: 'report.md',
        sectionId: uid('sec'),
        sectionTitle: 'Revenue',
        sectionLevel: 2,
      },
    ],
    unresolvedCitations: ['S9'],
    usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 900, cacheWriteTokens: 250, modelCalls: 2, retries: 1 },
    createdAt: tick(),
    ...over,
  };
}

function researchTests(ctx: SuiteContext): void {
  describe('research sessions', () => {
    it('returns a saved session by id with its sources exactly as saved', async () => {
      const collection = await seedCollection(ctx.store);
      const session = makeResearchSession(collection.id);
      await ctx.store.insertResearchSession(session);
      expect(await ctx.store.getResearchSession(session.id)).toEqual(session);
      expect(await ctx.store.getResearchSession(uid('missing'))).toBeNull();
    });

    it("lists a collection's sessions newest first, at most the limit, never another collection's", async () => {
      const collection = await seedCollection(ctx.store);
      const other = await seedCollection(ctx.store);
      const sessions = [1, 2, 3].map((n) => makeResearchSession(collection.id, { query: `q${n}`, sources: [], usage: null, unresolvedCitations: [] }));
      for (const s of sessions) await ctx.store.insertResearchSession(s);
      await ctx.store.insertResearchSession(makeResearchSession(other.id));
      expect(ids(await ctx.store.listResearchSessions(collection.id, 50))).toEqual(ids([...sessions].reverse()));
      expect(ids(await ctx.store.listResearchSessions(collection.id, 2))).toEqual(ids(sessions.slice(1).reverse()));
    });

    it('deletes one session and treats deleting a missing one as a no-op', async () => {
      const collection = await seedCollection(ctx.store);
      const [gone, kept] = [makeResearchSession(collection.id), makeResearchSession(collection.id)];
      await ctx.store.insertResearchSession(gone);
      await ctx.store.insertResearchSession(kept);
      await ctx.store.deleteResearchSession(gone.id);
      await ctx.store.deleteResearchSession(gone.id);
      expect(await ctx.store.getResearchSession(gone.id)).toBeNull();
      expect(ids(await ctx.store.listResearchSessions(collection.id, 50))).toEqual([kept.id]);
    });
  });
}

function usageTests(ctx: SuiteContext): void {
  describe('usage meters', () => {
    it('reports zero for every meter of a project with no usage', async () => {
      const { project } = await seedProject(ctx.store);
      expect(await ctx.store.usageTotals(project.id, 'live', '1970-01-01T00:00:00.000Z')).toEqual({ queries: 0, credits: 0 });
    });

    it('sums fractional amounts per meter from `since` on, separately per project and environment', async () => {
      const { project } = await seedProject(ctx.store);
      const { project: other } = await seedProject(ctx.store);
      const before = tick();
      const since = tick();
      await ctx.store.addUsage(project.id, 'live', 'credits', 100, before);
      await ctx.store.addUsage(project.id, 'live', 'credits', 0.5, since);
      await ctx.store.addUsage(project.id, 'live', 'credits', 3, tick());
      await ctx.store.addUsage(project.id, 'live', 'queries', 1, tick());
      await ctx.store.addUsage(project.id, 'live', 'queries', 1, tick());
      await ctx.store.addUsage(project.id, 'test', 'queries', 7, tick());
      await ctx.store.addUsage(other.id, 'live', 'credits', 8, tick());
      expect(await ctx.store.usageTotals(project.id, 'live', since)).toEqual({ queries: 2, credits: 3.5 });
      expect(await ctx.store.usageTotals(project.id, 'test', since)).toEqual({ queries: 7, credits: 0 });
      expect(await ctx.store.usageTotals(other.id, 'live', since)).toEqual({ queries: 0, credits: 8 });
    });

    it('sums each meter per UTC day within [since, until), leaving out empty days, other sandboxes and projects (issue 37)', async () => {
      const { project } = await seedProject(ctx.store);
      const { project: other } = await seedProject(ctx.store);
      await ctx.store.addUsage(project.id, 'live', 'queries', 1, '2026-10-31T23:59:59.999Z');
      await ctx.store.addUsage(project.id, 'live', 'queries', 1, '2026-11-01T00:00:00.000Z');
      await ctx.store.addUsage(project.id, 'live', 'queries', 1, '2026-11-01T23:59:59.000Z');
      await ctx.store.addUsage(project.id, 'live', 'credits', 0.5, '2026-11-01T12:00:00.000Z');
      await ctx.store.addUsage(project.id, 'live', 'credits', 3, '2026-11-03T08:00:00.000Z');
      await ctx.store.addUsage(project.id, 'live', 'credits', -3, '2026-11-03T08:00:01.000Z');
      await ctx.store.addUsage(project.id, 'live', 'queries', 4, '2026-12-01T00:00:00.000Z');
      await ctx.store.addUsage(project.id, 'test', 'queries', 9, '2026-11-02T00:00:00.000Z');
      await ctx.store.addUsage(other.id, 'live', 'queries', 9, '2026-11-02T00:00:00.000Z');
      const days = await ctx.store.usageByDay(project.id, 'live', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z');
      const byKey = Object.fromEntries(days.map((d) => [`${d.date} ${d.meter}`, d.amount]));
      expect(byKey).toEqual({ '2026-11-01 queries': 2, '2026-11-01 credits': 0.5, '2026-11-03 credits': 0 });
    });

    it("totals a sandbox's live collections, their documents and bytes, apart from the other environment", async () => {
      const { project } = await seedProject(ctx.store);
      expect(await ctx.store.sandboxTotals(project.id, 'live')).toEqual({ collections: 0, documents: 0, storageBytes: 0 });
      const kept = makeCollection(project.id);
      const deleted = makeCollection(project.id, { deletedAt: tick() });
      const sandbox = makeCollection(project.id, { env: 'test' });
      for (const c of [kept, deleted, sandbox]) await ctx.store.insertCollection(c);
      await insertDocuments(ctx.store, [
        makeDocument(kept.id, { fileSizeBytes: 1000 }),
        makeDocument(kept.id, { fileSizeBytes: null }),
        makeDocument(deleted.id, { fileSizeBytes: 5000 }),
        makeDocument(sandbox.id, { fileSizeBytes: 70 }),
      ]);
      expect(await ctx.store.sandboxTotals(project.id, 'live')).toEqual({ collections: 1, documents: 2, storageBytes: 1000 });
      expect(await ctx.store.sandboxTotals(project.id, 'test')).toEqual({ collections: 1, documents: 1, storageBytes: 70 });
    });
  });
}

function makeProviderKey(projectId: string, over: Partial<ProviderKeyRecord> = {}): ProviderKeyRecord {
  return {
    id: uid('pk'),
    projectId,
    env: 'live',
    provider: 'anthropic',
    name: 'team key',
    keyEncrypted: 'v1:iv:tag:ciphertext',
    keyPreview: 'sk-a…wxyz',
    createdAt: tick(),
    ...over,
  };
}

function providerKeyTests(ctx: SuiteContext): void {
  describe('provider keys', () => {
    it('returns a created provider key by id with every field intact', async () => {
      const { project } = await seedProject(ctx.store);
      const key = makeProviderKey(project.id, { provider: 'openai' });
      await ctx.store.createProviderKey(key);
      expect(await ctx.store.getProviderKey(key.id)).toEqual(key);
      expect(await ctx.store.getProviderKey(uid('missing'))).toBeNull();
    });

    it("lists a project's provider keys newest first, never another project's", async () => {
      const { project } = await seedProject(ctx.store);
      const { project: other } = await seedProject(ctx.store);
      const keys = [makeProviderKey(project.id), makeProviderKey(project.id, { provider: 'openai' }), makeProviderKey(project.id)];
      for (const k of keys) await ctx.store.createProviderKey(k);
      await ctx.store.createProviderKey(makeProviderKey(other.id));
      expect(await ctx.store.listProviderKeys(project.id, 'live')).toEqual([...keys].reverse());
      const sandboxed = makeProviderKey(project.id, { env: 'test' });
      await ctx.store.createProviderKey(sandboxed);
      expect(await ctx.store.listProviderKeys(project.id, 'test')).toEqual([sandboxed]);
      expect(await ctx.store.listProviderKeys(project.id, 'live')).toEqual([...keys].reverse());
    });

    it('finds the newest key of the project for the provider, or null when it has none', async () => {
      const { project } = await seedProject(ctx.store);
      const { project: other } = await seedProject(ctx.store);
      const older = makeProviderKey(project.id);
      const newer = makeProviderKey(project.id);
      const openai = makeProviderKey(project.id, { provider: 'openai' });
      for (const k of [older, newer, openai]) await ctx.store.createProviderKey(k);
      await ctx.store.createProviderKey(makeProviderKey(other.id));
      expect(await ctx.store.findProviderKeyFor(project.id, 'live', 'anthropic')).toEqual(newer);
      expect(await ctx.store.findProviderKeyFor(project.id, 'live', 'openai')).toEqual(openai);
      expect(await ctx.store.findProviderKeyFor(project.id, 'test', 'openai')).toBeNull();
      expect(await ctx.store.findProviderKeyFor(other.id, 'live', 'openai')).toBeNull();
    });

    it('deletes one provider key and treats deleting a missing one as a no-op', async () => {
      const { project } = await seedProject(ctx.store);
      const [gone, kept] = [makeProviderKey(project.id), makeProviderKey(project.id)];
      await ctx.store.createProviderKey(gone);
      await ctx.store.createProviderKey(kept);
      await ctx.store.deleteProviderKey(gone.id);
      await ctx.store.deleteProviderKey(gone.id);
      expect(await ctx.store.getProviderKey(gone.id)).toBeNull();
      expect(ids(await ctx.store.listProviderKeys(project.id, 'live'))).toEqual([kept.id]);
      expect(await ctx.store.findProviderKeyFor(project.id, 'live', 'anthropic')).toEqual(kept);
    });
  });
}

function imageTests(ctx: SuiteContext): void {
  describe('images and table chunks', () => {
    let doc: DocumentRecord;
    beforeEach(async () => {
      const collection = await seedCollection(ctx.store);
      doc = makeDocument(collection.id);
      await ctx.store.insertDocument(doc);
    });
    const image = (position: number, over: Partial<DocumentImageRecord> = {}): DocumentImageRecord => ({
      id: randomUUID(),
      documentId: doc.id,
      sectionId: null,
      placeholder: `dossier://img-${position + 1}`,
      mimeType: 'image/png',
      caption: null,
      position,
      byteSize: 10 + position,
      ...over,
    });

    it('lists images by position and replaces them all on a re-run', async () => {
      const [a, b] = [image(0), image(1, { sectionId: randomUUID(), caption: 'A chart' })];
      await ctx.store.replaceImages(doc.id, [b!, a!]);
      expect(await ctx.store.listImages(doc.id)).toEqual([a, b]);
      const c = image(0);
      await ctx.store.replaceImages(doc.id, [c]);
      expect(await ctx.store.listImages(doc.id)).toEqual([c]);
    });

    it('lists table chunks by section position then chunk position, and replaces them on a re-run', async () => {
      const row = (sectionPosition: number, chunkPosition: number) => ({
        chunkId: randomUUID(),
        documentId: doc.id,
        sectionId: randomUUID(),
        sectionPosition,
        chunkPosition,
        content: `| ${sectionPosition} | ${chunkPosition} |`,
        caption: null,
      });
      const rows = [row(1, 0), row(0, 2), row(0, 1)];
      await ctx.store.replaceTableChunks(doc.id, rows);
      expect(await ctx.store.listTableChunks(doc.id)).toEqual([rows[2], rows[1], rows[0]]);
      await ctx.store.replaceTableChunks(doc.id, []);
      expect(await ctx.store.listTableChunks(doc.id)).toEqual([]);
    });

    it('drops the images and table chunks of a deleted document', async () => {
      await ctx.store.replaceImages(doc.id, [image(0)]);
      await ctx.store.deleteDocument(doc.id);
      expect(await ctx.store.listImages(doc.id)).toEqual([]);
    });
  });
}

/** What the post-ready model jobs write: AI summaries (with the extractive one kept aside) and captions. */
function enrichTests(ctx: SuiteContext): void {
  describe('AI summaries and captions', () => {
    let collection: Collection;
    let doc: DocumentRecord;
    beforeEach(async () => {
      collection = await seedCollection(ctx.store);
      doc = makeDocument(collection.id);
      await ctx.store.insertDocument(doc);
    });
    const image = (d: DocumentRecord, caption: string | null = null): DocumentImageRecord => ({
      id: randomUUID(),
      documentId: d.id,
      sectionId: null,
      placeholder: 'dossier://img-1',
      mimeType: 'image/png',
      caption,
      position: 0,
      byteSize: 10,
    });
    const table = (d: DocumentRecord, caption: string | null = null) => ({
      chunkId: randomUUID(),
      documentId: d.id,
      sectionId: randomUUID(),
      sectionPosition: 0,
      chunkPosition: 0,
      content: '| a | b |',
      caption,
    });
    const byId = <T extends { id: string }>(rows: T[]): T[] => [...rows].sort((x, y) => x.id.localeCompare(y.id));

    it('stores an AI summary as generated and restores the extractive one, or null, on reset', async () => {
      const a = makeSection(doc, 0, { summary: 'First words.', summaryType: 'extractive' });
      const b = makeSection(doc, 1);
      const good = makeSection(doc, 2, { summary: 'Kept.', summaryType: 'extractive' });
      await ctx.store.replaceSections(doc.id, [a, b, good]);
      await ctx.store.setGeneratedSummary(a.id, 'AI one');
      await ctx.store.setGeneratedSummary(a.id, 'AI one, again');
      await ctx.store.setGeneratedSummary(b.id, 'AI two');
      expect((await ctx.store.listSections(doc.id)).map((s) => [s.summary, s.summaryType])).toEqual([
        ['AI one, again', 'generated'],
        ['AI two', 'generated'],
        ['Kept.', 'extractive'],
      ]);
      const restored = await ctx.store.resetGeneratedSummaries(collection.id);
      expect(byId(restored)).toEqual(byId([a, b]));
      expect(await ctx.store.listSections(doc.id)).toEqual([a, b, good]);
      expect(await ctx.store.resetGeneratedSummaries(collection.id)).toEqual([]);
    });

    it("resets only the collection's own AI summaries", async () => {
      const other = await seedCollection(ctx.store);
      const otherDoc = makeDocument(other.id);
      await ctx.store.insertDocument(otherDoc);
      const theirs = makeSection(otherDoc, 0, { summary: 'x', summaryType: 'extractive' });
      await ctx.store.replaceSections(otherDoc.id, [theirs]);
      await ctx.store.setGeneratedSummary(theirs.id, 'AI theirs');
      expect(await ctx.store.resetGeneratedSummaries(collection.id)).toEqual([]);
      expect((await ctx.store.listSections(otherDoc.id))[0]).toMatchObject({ summary: 'AI theirs', summaryType: 'generated' });
    });

    it('sets the caption of one image and of one table chunk, leaving the others alone', async () => {
      const [i1, i2] = [image(doc), { ...image(doc), placeholder: 'dossier://img-2', position: 1 }];
      const [t1, t2] = [table(doc), { ...table(doc), chunkPosition: 1 }];
      await ctx.store.replaceImages(doc.id, [i1, i2]);
      await ctx.store.replaceTableChunks(doc.id, [t1, t2]);
      await ctx.store.setImageCaption(i2.id, 'A bar chart.');
      await ctx.store.setTableChunkCaption(t1.chunkId, 'Prices by year.');
      expect((await ctx.store.listImages(doc.id)).map((i) => i.caption)).toEqual([null, 'A bar chart.']);
      expect((await ctx.store.listTableChunks(doc.id)).map((t) => t.caption)).toEqual(['Prices by year.', null]);
    });

    it('clears every caption of the collection and names the documents that had one', async () => {
      const [second, plain] = await insertDocuments(ctx.store, [makeDocument(collection.id), makeDocument(collection.id)]);
      const other = await seedCollection(ctx.store);
      const otherDoc = makeDocument(other.id);
      await ctx.store.insertDocument(otherDoc);
      await ctx.store.replaceImages(doc.id, [image(doc, 'Cat.')]);
      await ctx.store.replaceTableChunks(second.id, [table(second, 'Table.'), table(second)]);
      await ctx.store.replaceImages(plain.id, [image(plain)]);
      await ctx.store.replaceImages(otherDoc.id, [image(otherDoc, 'Dog.')]);
      expect((await ctx.store.resetCaptions(collection.id)).sort()).toEqual([doc.id, second.id].sort());
      expect((await ctx.store.listImages(doc.id))[0]!.caption).toBeNull();
      expect((await ctx.store.listTableChunks(second.id)).map((t) => t.caption)).toEqual([null, null]);
      expect((await ctx.store.listImages(otherDoc.id))[0]!.caption).toBe('Dog.');
      expect(await ctx.store.resetCaptions(collection.id)).toEqual([]);
    });

    it('counts ready documents with an image or table caption as captioned, and documents with an AI summary as summarized', async () => {
      const [tabled, processing] = await insertDocuments(ctx.store, [makeDocument(collection.id), makeDocument(collection.id, { status: 'processing' })]);
      const uncaptioned = makeDocument(collection.id);
      await ctx.store.insertDocument(uncaptioned);
      await ctx.store.replaceImages(doc.id, [image(doc, 'Cat.'), { ...image(doc, 'Dog.'), position: 1 }]);
      await ctx.store.replaceTableChunks(tabled.id, [table(tabled, 'Table.')]);
      await ctx.store.replaceImages(processing.id, [image(processing, 'Not ready yet.')]);
      await ctx.store.replaceImages(uncaptioned.id, [image(uncaptioned)]);
      const section = makeSection(doc, 0, { summary: 'x', summaryType: 'extractive' });
      await ctx.store.replaceSections(doc.id, [section]);
      await ctx.store.setGeneratedSummary(section.id, 'AI');
      expect(await ctx.store.collectionCounts(collection.id)).toMatchObject({ captionedCount: 2, summarizedCount: 1 });
      await ctx.store.resetCaptions(collection.id);
      await ctx.store.resetGeneratedSummaries(collection.id);
      expect(await ctx.store.collectionCounts(collection.id)).toMatchObject({ captionedCount: 0, summarizedCount: 0 });
    });
  });
}

/** Issue 43: a source's run lock, taken by one owner at a time, renewed by its owner, free again when its lease ends. */
function sourceLockTests(ctx: SuiteContext): void {
  describe('source run locks', () => {
    it('lets one owner hold a source at a time until it unlocks or its lease ends', async () => {
      const collection = await seedCollection(ctx.store);
      const source = sourceRecord(collection.id, new Date().toISOString());
      await ctx.store.insertSource(source);
      const later = (ms: number) => new Date(Date.now() + ms).toISOString();
      expect(await ctx.store.lockSource(source.id, 'node-a', later(60_000))).toBe(true);
      expect(await ctx.store.lockSource(source.id, 'node-b', later(60_000))).toBe(false);
      expect(await ctx.store.lockSource(source.id, 'node-a', later(120_000))).toBe(true); // a renewal
      await ctx.store.unlockSource(source.id, 'node-b'); // not its lock: nothing happens
      expect(await ctx.store.lockSource(source.id, 'node-b', later(60_000))).toBe(false);
      await ctx.store.unlockSource(source.id, 'node-a');
      expect(await ctx.store.lockSource(source.id, 'node-b', later(-1_000))).toBe(true); // a lease already over
      expect(await ctx.store.lockSource(source.id, 'node-a', later(60_000))).toBe(true);
      expect(await ctx.store.getSource(source.id)).toEqual(source);
    });
  });
}
