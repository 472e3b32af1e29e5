import type { EvaluationStore } from './evaluation-store.ts';
import type { Account, ApiKeyRecord, Collection, DocumentRecord, DocumentStatus, Env, Metadata, Org, Project, SectionRecord } from '../domain/types.ts';
import type { AgentStore } from './agent-store.ts';
import type { IdempotencyStore } from './idempotency-store.ts';
import type { KeyStore } from './key-store.ts';
import type { OAuthStore } from './oauth-store.ts';
import type { TenancyStore } from './tenancy-store.ts';
import type { EnrichStore } from './enrich-store.ts';
import type { ImageStore } from './image-store.ts';
import type { ProviderKeyStore } from './provider-key-store.ts';
import type { ClaimStore } from './claim-store.ts';
import type { DuplicateStore } from './duplicate-store.ts';
import type { ResearchStore, UsageStore } from './research-store.ts';
import type { WebhookStore } from './webhook-store.ts';
import type { CollectionSourceStore, SourceDocumentStore } from './source-store.ts';

/** Fields a collection update may change (embeddingModel never changes). */
export type CollectionPatch = Partial<Omit<Collection, 'id' | 'projectId' | 'env' | 'embeddingModel' | 'embeddingDimension' | 'createdAt'>>;

/** Fields a document update may change. */
export type DocumentPatch = Partial<Omit<DocumentRecord, 'id' | 'collectionId' | 'createdAt'>>;

export interface DocumentListQuery extends Omit<DocumentFilter, 'metadata'> {
  status?: DocumentStatus;
  limit: number;
  offset: number;
}

/** Tag and metadata filters applied to documents (same meaning as RetrievalFilter). */
export interface DocumentFilter {
  tags?: string[];
  anyTags?: string[];
  metadata?: Metadata;
}

/** Aggregates behind CollectionStats that live in the metadata store. */
export interface CollectionCounts {
  docCount: number;
  totalFileSizeBytes: number;
  /** Uploads plus what was derived from them, summed from each document's counters (no file listing); = usage `storage`. */
  storageBytes: number;
  totalSections: number;
  totalChunks: number;
  statusCounts: Record<string, number>;
  summarizedCount: number;
  /** Ready documents with at least one image or table caption (each caption has its caption chunk). */
  captionedCount: number;
}

/**
 * Relational metadata: tenancy, keys, collections, documents, sections (the other stores in their own files).
 * Every method is scoped by the ids it takes; tenancy checks are the caller's policy.
 */
export interface MetadataStore
  extends ResearchStore, UsageStore, ProviderKeyStore, ImageStore, EnrichStore, ClaimStore, DuplicateStore, AgentStore, WebhookStore, KeyStore, TenancyStore, IdempotencyStore, OAuthStore, SourceDocumentStore, CollectionSourceStore,
    EvaluationStore {
  /** Apply pending versioned migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** Release connections. */
  close(): Promise<void>;
  /** Bytes used by the store on disk, when known (0 otherwise). */
  sizeBytes(): Promise<number>;

  /** Insert an account (email is unique, compared case-insensitively). */
  createAccount(account: Account): Promise<void>;
  /** Find an account by email, case-insensitively. */
  findAccountByEmail(email: string): Promise<Account | null>;
  /** Insert an org and make the account a member with the given role. */
  createOrg(org: Org, ownerAccountId: string, role: 'admin' | 'member'): Promise<void>;
  /** Orgs the account belongs to, oldest first. */
  listOrgsForAccount(accountId: string): Promise<Org[]>;
  /** Make the account a member of the org with the role, or change its role. */
  setMembership(orgId: string, accountId: string, role: 'admin' | 'member'): Promise<void>;
  /** The account's role in the org, or null when not a member. */
  getMembershipRole(orgId: string, accountId: string): Promise<'admin' | 'member' | null>;
  /** Insert a project. */
  createProject(project: Project): Promise<void>;
  /** A project by id. */
  getProject(id: string): Promise<Project | null>;
  /** Projects of an org, oldest first. */
  listProjects(orgId: string): Promise<Project[]>;

  /** Insert an API key record. */
  createApiKey(key: ApiKeyRecord): Promise<void>;
  /** A non-revoked API key by the sha256 hex of its plaintext. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;

  /** Insert a collection. */
  insertCollection(collection: Collection): Promise<void>;
  /** A collection by id, including soft-deleted ones (callers check deletedAt). */
  getCollection(id: string): Promise<Collection | null>;
  /** Live (not soft-deleted) collections of a project environment, oldest first. */
  listCollections(projectId: string, env: Env): Promise<Collection[]>;
  /** Apply a patch and return the updated collection. */
  updateCollection(id: string, patch: CollectionPatch): Promise<Collection>;
  /** Document, section and size aggregates for stats. */
  collectionCounts(collectionId: string): Promise<CollectionCounts>;

  /** Insert a document. */
  insertDocument(doc: DocumentRecord): Promise<void>;
  /** A document by id. */
  getDocument(id: string): Promise<DocumentRecord | null>;
  /** Documents by ids (missing ids are skipped), in no particular order. */
  getDocuments(ids: string[]): Promise<DocumentRecord[]>;
  /** A page of a collection's documents, newest first, with the total matching count. */
  listDocuments(collectionId: string, q: DocumentListQuery): Promise<{ documents: DocumentRecord[]; total: number }>;
  /** Every document of a collection matching the filter (ids and filenames are enough for callers). */
  findDocuments(collectionId: string, filter: DocumentFilter): Promise<DocumentRecord[]>;
  /** The oldest document in the collection whose contentHash matches and whose status is not error. */
  findDocumentByHash(collectionId: string, contentHash: string): Promise<DocumentRecord | null>;
  /** Apply a patch (updatedAt is set by the store) and return the updated document. */
  updateDocument(id: string, patch: DocumentPatch): Promise<DocumentRecord>;
  /** Delete a document and its sections. */
  deleteDocument(id: string): Promise<void>;
  /** Tag names with document counts, sorted by count desc then name. */
  tagCounts(collectionId: string): Promise<{ name: string; count: number }[]>;
  /** True when at least one document of the collection has non-empty metadata. */
  hasMetadata(collectionId: string): Promise<boolean>;

  /** Replace every section of a document in one transaction (idempotent re-run). */
  replaceSections(documentId: string, sections: SectionRecord[]): Promise<void>;
  /** Set chunk counts of sections (sectionId → count). */
  setSectionChunkCounts(counts: Record<string, number>): Promise<void>;
  /** Sections of a document ordered by position. */
  listSections(documentId: string): Promise<SectionRecord[]>;
  /** Sections by ids. */
  getSections(ids: string[]): Promise<SectionRecord[]>;
}
export const METADATA_STORE_SPEC_VERSION = '1.0.0'; // the contract metadataStoreSuite checks (major: every adapter must change)
