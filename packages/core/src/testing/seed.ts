import { randomUUID } from 'node:crypto';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import { newRun } from '../sources/run.ts';
import type { SourceRecord, SourceRunRecord } from '../sources/types.ts';

/** An account that is admin of a new org with one new project, all created at `createdAt`; returns their ids. */
export async function seedTenant(store: MetadataStore, createdAt: string): Promise<{ accountId: string; orgId: string; projectId: string }> {
  const accountId = randomUUID();
  const orgId = randomUUID();
  const projectId = randomUUID();
  await store.createAccount({ id: accountId, email: `${accountId}@example.com`, passwordHash: 'hash', createdAt });
  await store.createOrg({ id: orgId, name: 'Org', createdAt }, accountId, 'admin');
  await store.createProject({ id: projectId, orgId, name: 'Project', createdAt });
  return { accountId, orgId, projectId };
}

/** An account that is admin of a new org with one new project, all created at `createdAt`; returns the project id. */
export async function seedProject(store: MetadataStore, createdAt: string): Promise<string> {
  return (await seedTenant(store, createdAt)).projectId;
}

/** A private `live` collection record of the project (embedding model `none`, defaults elsewhere) created at `createdAt`; `over` changes any field. */
export function collectionRecord(projectId: string, name: string, createdAt: string, over: Partial<Collection> = {}): Collection {
  return {
    id: randomUUID(),
    projectId,
    env: 'live',
    name,
    visibility: 'private',
    description: null,
    chunkSize: 512,
    chunkOverlap: 64,
    embeddingModel: 'none',
    embeddingDimension: 0,
    enableSummarization: false,
    enableCaptioning: false,
    enableReranking: false,
    enableDeduplication: false,
    suppressContradictionsByMetadata: true,
    suppressIntraDocumentContradictions: true,
    llmModel: null,
    instructions: null,
    queryExpansion: null,
    duplicateThreshold: null,
    createdAt,
    deletedAt: null,
    ...over,
  };
}

/** A private `live` collection of the project (see collectionRecord), inserted; returns its id. */
export async function seedCollection(store: MetadataStore, projectId: string, name: string, createdAt: string): Promise<string> {
  const collection = collectionRecord(projectId, name, createdAt);
  await store.insertCollection(collection);
  return collection.id;
}

/** A `ready` Markdown document record of one section and one chunk in the collection, created at `createdAt`; `over` changes any field. */
export function documentRecord(collectionId: string, filename: string, createdAt: string, over: Partial<DocumentRecord> = {}): DocumentRecord {
  return {
    id: randomUUID(),
    collectionId,
    filename,
    contentType: 'text/markdown',
    status: 'ready',
    fileSizeBytes: 10,
    sectionCount: 1,
    chunkCount: 1,
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
    ...over,
  };
}

/** A folder source of the collection, run only on demand, created at `createdAt`; `over` changes any field (an S3 source: kind, location, settings, credentials). */
export function sourceRecord(collectionId: string, createdAt: string, over: Partial<SourceRecord> = {}): SourceRecord {
  return {
    id: randomUUID(),
    collectionId,
    kind: 'folder',
    location: '/srv/docs',
    settings: {},
    credentialsEncrypted: null,
    intervalMinutes: null,
    maxDeleteShare: 0.2,
    paused: false,
    nextRunAt: null,
    createdAt,
    updatedAt: createdAt,
    ...over,
  };
}

/** A manual run of the source that started at `startedAt` and is still running, nothing counted yet; `over` changes any field. */
export function sourceRunRecord(source: Pick<SourceRecord, 'id' | 'collectionId'>, startedAt: string, over: Partial<SourceRunRecord> = {}): SourceRunRecord {
  return { ...newRun(source, 'manual'), startedAt, ...over };
}
