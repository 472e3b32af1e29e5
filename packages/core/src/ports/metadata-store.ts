import type { AccountStore } from './account-store.ts';
import type { CollectionStore } from './collection-store.ts';
import type { DocumentStore } from './document-store.ts';
import type { SectionStore } from './section-store.ts';
import type { EvaluationStore } from './evaluation-store.ts';
import type { AgentStore } from './agent-store.ts';
import type { IdempotencyStore } from './idempotency-store.ts';
import type { KeyStore } from './key-store.ts';
import type { OAuthStore } from './oauth-store.ts';
import type { TenancyStore } from './tenancy-store.ts';
import type { PeopleStore } from './people-store.ts';
import type { EnrichStore } from './enrich-store.ts';
import type { ImageStore } from './image-store.ts';
import type { ProviderKeyStore } from './provider-key-store.ts';
import type { ClaimStore } from './claim-store.ts';
import type { DuplicateStore } from './duplicate-store.ts';
import type { ResearchStore, UsageStore } from './research-store.ts';
import type { WebhookStore } from './webhook-store.ts';
import type { CollectionSourceStore, SourceDocumentStore } from './source-store.ts';

export type { CollectionCounts, CollectionPatch } from './collection-store.ts';
export type { DocumentFilter, DocumentListQuery, DocumentPatch } from './document-store.ts';

/**
 * Relational metadata, one store per feature (each in its own file, each with its conformance suite): what a
 * one-database adapter (SQLite, Postgres) implements at once. A service takes only the feature stores it names, and
 * composeMetadataStore (store-parts.ts) serves any part from a store of your own. Every method is scoped by the ids
 * it takes; tenancy checks are the caller's policy.
 */
export interface MetadataStore
  extends AccountStore,
    KeyStore,
    TenancyStore,
    PeopleStore,
    CollectionStore,
    DocumentStore,
    SectionStore,
    ResearchStore,
    UsageStore,
    ProviderKeyStore,
    ImageStore,
    EnrichStore,
    ClaimStore,
    DuplicateStore,
    AgentStore,
    WebhookStore,
    IdempotencyStore,
    OAuthStore,
    SourceDocumentStore,
    CollectionSourceStore,
    EvaluationStore {
  /** Apply pending versioned migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** Release connections. */
  close(): Promise<void>;
  /** Bytes used by the store on disk, when known (0 otherwise). */
  sizeBytes(): Promise<number>;
}
export const METADATA_STORE_SPEC_VERSION = '1.0.0'; // the contract metadataStoreSuite checks (major: every adapter must change)
