/**
 * Dossier's declared public API (issue 10): what `createDossier` (in `@dossier/adapters`) and `createDossierCore`
 * return, and what the HTTP server (`@dossier/server`) serves. It names each group of services and documents it;
 * nothing internal (the adapters, the secret box, the worker runners) is reachable from it.
 *
 * Every data-plane method takes the caller's `Access` first: `{ projectId, env }` of a project sandbox, or `null`
 * for an anonymous caller (public collections only). `local()` binds a built-in project for apps that embed the
 * library and have no API keys.
 */
import type { Access } from './access.ts';
import type { AgentRunService } from './agents/runs.ts';
import type { AgentService } from './agents/service.ts';
import type { KeyService } from './auth/key-service.ts';
import type { OrgService } from './auth/org-service.ts';
import type { AuthService } from './auth/service.ts';
import type { ClaimService } from './claims/service.ts';
import type { CollectionService, CollectionView } from './collections/service.ts';
import type { DocumentEvent } from './domain/types.ts';
import type { DuplicateService } from './duplicates/service.ts';
import type { EvaluationService } from './evaluation/service.ts';
import type { imageService } from './documents/images.ts';
import type { pageImageService } from './documents/page-images.ts';
import type { DocumentService } from './documents/manage.ts';
import type { UploadService } from './documents/uploads.ts';
import type { RecomputeService } from './enrich/recompute.ts';
import type { IdempotencyService } from './idempotency/service.ts';
import type { oauthService } from './oauth/service.ts';
import type { ProviderKeyService } from './providers/keys.ts';
import type { ResearchService } from './research/service.ts';
import type { ScopedDossier } from './scoped.ts';
import type { filenameSearchService } from './search/filename-search.ts';
import type { Lease } from './ports/concurrency-gate.ts';
import type { SearchService } from './search/query.ts';
import type { Sandbox, UsageMeters } from './usage/quotas.ts';
import type { WebhookService } from './webhooks/service.ts';
import type { UsageDaily } from './usage/daily.ts';
import type { PeopleService } from './people/index.ts';
import type { SourceService } from './sources/service.ts';

/** Collections: create, list, get, update, delete, stats, re-derive (recompute) and describe with the fast model. */
export type CollectionsApi = CollectionService &
  RecomputeService & {
    /** Write the collection's description with the fast model from its file names and top headings. */
    describe(access: Access, collectionId: string): Promise<CollectionView>;
  };

/** Documents: direct and presigned uploads, listing, reading (Markdown, sections, pages, images), deletion, file-name search. */
export type DocumentsApi = DocumentService &
  UploadService &
  ReturnType<typeof imageService> &
  ReturnType<typeof pageImageService> & {
    /** Find documents of a collection by file name (accent- and case-insensitive). */
    search: ReturnType<typeof filenameSearchService>['search'];
  };

/** Hosted agents and their runs (invoked by an org member's session or an org API key). */
export type AgentsApi = AgentService & Omit<AgentRunService, 'failStaleRuns'>;

/** A collection's live document events (the SSE stream's source). */
export interface EventsApi {
  /** Receive the collection's DocumentEvents until the returned function is called. */
  subscribe(access: Access, collectionId: string, handler: (event: DocumentEvent) => void): Promise<() => void>;
}

/** Usage of a project sandbox. */
export interface UsageApi {
  /** The sandbox's meters for the current month (spec: Usage meters). */
  meters(sandbox: Sandbox): Promise<UsageMeters>;
  /** The sandbox's meters of a month (query `month` YYYY-MM, default the current one) day by day, for charts. */
  daily(sandbox: Sandbox, query?: unknown): Promise<UsageDaily>;
}

/** Agent-run slots of an org (its plan's cap on concurrent runs). */
export interface LimitsApi {
  /** Take a slot of the project's org for an agent run; throws 429 when the org's cap is reached, null when unlimited. */
  acquireRunSlot(projectId: string, leaseMs: number): Promise<Lease | null>;
  /** Give a slot back. */
  releaseRunSlot(lease: Lease | null): Promise<void>;
}

/**
 * One Dossier instance: the whole service over its adapters. Call `close()` when done: it drains the pipeline
 * workers and releases every adapter.
 */
export interface Dossier {
  /** Embedding model of new collections, resolved at start (`none` when no model could be loaded: BM25 only). */
  readonly defaultEmbeddingModel: string;

  // ---- data plane (project sandboxes) ----
  /** Collections of documents, each with its embedding model and retrieval settings. */
  readonly collections: CollectionsApi;
  /** Documents of a collection: upload, read, list, delete. Ingestion runs in the background. */
  readonly documents: DocumentsApi;
  /** Hybrid (BM25 + vector) search of a collection, with optional reranking. */
  readonly search: SearchService;
  /** Golden sets, evaluation runs, comparisons and the evaluation guard of a collection's settings (issue 38). */
  readonly evaluations: EvaluationService;
  /** Research: an agent that searches and reads a collection to answer a question with citations. */
  readonly research: ResearchService;
  /** Claims extracted from documents, the claim map, and contradictions between documents. */
  readonly claims: ClaimService;
  /** Near-duplicate documents of a collection. */
  readonly duplicates: DuplicateService;
  /** Live document status events of a collection. */
  readonly events: EventsApi;
  /** A project's own model-provider keys (bring your own key). */
  readonly providerKeys: ProviderKeyService;
  /** Usage meters of a sandbox. */
  readonly usage: UsageApi;

  // ---- management plane ----
  /** Accounts, sessions (JWT), API-key authentication and the first-start bootstrap. */
  readonly auth: AuthService;
  /** A project's API keys and an org's keys. */
  readonly keys: KeyService;
  /** Orgs, members and projects. */
  readonly orgs: OrgService;
  /** Hosted agents and their runs. */
  readonly agents: AgentsApi;
  /** Webhook endpoints of a project and their deliveries. */
  readonly webhooks: WebhookService;
  /** Issue 43: folders on the server's disk synced into collections, on demand or on a schedule, with their runs. */
  readonly sources: SourceService;
  /** Idempotency-Key bookkeeping of creating requests (used by the HTTP server). */
  readonly idempotency: IdempotencyService;
  /** Agent-run slots of orgs. */
  readonly limits: LimitsApi;
  /** The OAuth 2.1 authorization server of the MCP endpoint: clients, consent, codes and tokens. */
  readonly oauth: ReturnType<typeof oauthService>;
  /** People on a team (issue 42): invitations, accounts, sessions, password resets, single sign-on accounts. */
  readonly people: PeopleService;

  // ---- lifecycle ----
  /** The data-plane services of a built-in local project, for apps that embed the library without keys. */
  local(): Promise<ScopedDossier>;
  /** Start the pipeline workers in this process (`createDossier` has already called it). */
  start(): void;
  /**
   * Resolves when no pipeline job is runnable or running (for scripts, tests and benchmarks) and the index
   * maintenance those jobs call for has run (the embedded index is folded and compacted, not left to a timer).
   */
  idle(): Promise<void>;
  /** Drain in-flight jobs, then release every adapter. */
  close(): Promise<void>;
}
