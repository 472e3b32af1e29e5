/**
 * Dossier's declared public API (issues 10 and 35): what `createDossier` (in `@dossier/adapters`) and
 * `createDossierCore` return, and what the HTTP server (`@dossier/server`) serves. Every group is an interface
 * written out in `api/`, one file per group, every method documented with the `DossierError` codes it throws;
 * each service factory declares the interface it returns, so the two cannot drift. Nothing internal (the adapters,
 * the secret box, the worker runners) is reachable from it.
 *
 * Every data-plane method takes the caller's `Access` first: `{ projectId, env }` of a project sandbox, or `null`
 * for an anonymous caller (public collections only). `local()` binds a built-in project for apps that embed the
 * library and have no API keys. Management-plane methods take the signed-in account's `SessionClaims`.
 */
import type { Access } from './access.ts';
import type { AgentsApi } from './api/agents.ts';
import type { AuthService } from './api/auth.ts';
import type { ClaimService } from './api/claims.ts';
import type { CollectionsApi } from './api/collections.ts';
import type { DocumentsApi } from './api/documents.ts';
import type { DuplicateService } from './api/duplicates.ts';
import type { EvaluationService } from './api/evaluations.ts';
import type { IdempotencyService } from './api/idempotency.ts';
import type { KeyService } from './api/keys.ts';
import type { OAuthService } from './api/oauth.ts';
import type { OrgService } from './api/orgs.ts';
import type { PeopleService } from './api/people.ts';
import type { ProviderKeyService } from './api/provider-keys.ts';
import type { ResearchService } from './api/research.ts';
import type { SearchService } from './api/search.ts';
import type { SourceService } from './api/sources.ts';
import type { WebhookService } from './api/webhooks.ts';
import type { CollectionView } from './collections/service.ts';
import type { DirectUpload } from './documents/uploads.ts';
import type { DocumentView } from './documents/view.ts';
import type { DocumentEvent } from './domain/types.ts';
import type { Lease } from './ports/concurrency-gate.ts';
import type { CreateCollectionInput } from './schemas.ts';
import type { UsageDaily } from './usage/daily.ts';
import type { Sandbox, UsageMeters } from './usage/quotas.ts';

/** `dossier.events`: a collection's live document events (the SSE stream's source). */
export interface EventsApi {
  /**
   * Receive the collection's DocumentEvents until the returned function is called; live when this resolves (every
   * later event reaches the handler, whichever node publishes it).
   * @throws {DossierError} `not_found` (collection), `unavailable` (the event bus could not subscribe).
   * @example
   * const stop = await dossier.events.subscribe(access, id, (e) => console.log(e.type, e.documentId));
   */
  subscribe(access: Access, collectionId: string, handler: (event: DocumentEvent) => void): Promise<() => void>;
}

/** `dossier.usage`: usage of a project sandbox. */
export interface UsageApi {
  /** The sandbox's meters for the current month (spec: Usage meters). */
  meters(sandbox: Sandbox): Promise<UsageMeters>;
  /**
   * The sandbox's meters of a month (query `month` YYYY-MM, default the current one) day by day, for charts.
   * @throws {DossierError} `invalid_input` (bad month).
   */
  daily(sandbox: Sandbox, query?: unknown): Promise<UsageDaily>;
}

/** `dossier.limits`: agent-run slots of an org (its plan's cap on concurrent runs). */
export interface LimitsApi {
  /**
   * Take a slot of the project's org for an agent run; null when the org's plan is unlimited.
   * @throws {DossierError} `rate_limited` (the org's cap is reached).
   */
  acquireRunSlot(projectId: string, leaseMs: number): Promise<Lease | null>;
  /** Give a slot back. */
  releaseRunSlot(lease: Lease | null): Promise<void>;
}

/** A service with its leading Access parameter bound. */
export type Bound<T> = {
  [K in keyof T]: T[K] extends (access: Access, ...rest: infer R) => infer O ? (...rest: R) => O : T[K];
};

/** `local().collections`: the collection methods of one project sandbox. */
export interface ScopedCollections extends Omit<Bound<CollectionsApi>, 'create'> {
  /**
   * Create a collection in this project (`projectId` is filled in).
   * @example
   * const col = await (await dossier.local()).collections.create({ name: 'Notes' });
   */
  create(input: Omit<CreateCollectionInput, 'projectId'> & { projectId?: string }): Promise<CollectionView>;
}

/** `local().documents`: the document methods of one project sandbox. */
export interface ScopedDocuments extends Bound<DocumentsApi> {
  /**
   * Add a file from bytes: the library form of a direct upload.
   * @throws {DossierError} as `Dossier.documents.upload`.
   */
  add(collectionId: string, file: DirectUpload): Promise<DocumentView>;
}

/**
 * The data-plane services of one project sandbox with its `Access` bound, for apps that embed the library (no API
 * key needed): each method is its `Dossier` counterpart without the leading `access`.
 * @example
 * const local = await dossier.local();
 * const col = await local.collections.create({ name: 'Handbook' });
 * await local.documents.add(col.id, { filename: 'leave.md', bytes });
 * const { results } = await local.search.query(col.id, { q: 'parental leave' });
 */
export interface ScopedDossier {
  /** The sandbox every method acts in. */
  readonly access: NonNullable<Access>;
  /** `Dossier.collections` in this sandbox (`create` fills in its project). */
  readonly collections: ScopedCollections;
  /** `Dossier.documents` in this sandbox, plus `add` (a direct upload from bytes). */
  readonly documents: ScopedDocuments;
  /** `Dossier.search` in this sandbox. */
  readonly search: Bound<SearchService>;
  /** `Dossier.evaluations` in this sandbox. */
  readonly evaluations: Bound<EvaluationService>;
  /** `Dossier.research` in this sandbox. */
  readonly research: Bound<ResearchService>;
  /** `Dossier.claims` in this sandbox. */
  readonly claims: Bound<ClaimService>;
  /** `Dossier.duplicates` in this sandbox. */
  readonly duplicates: Bound<DuplicateService>;
  /** `Dossier.events` in this sandbox. */
  readonly events: Bound<EventsApi>;
}

/** The data plane of a Dossier: project sandboxes' collections, documents and what is derived from them. */
export interface DossierDataPlane {
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
}

/** The management plane of a Dossier: accounts, orgs, projects and their keys, agents, webhooks, sources, OAuth. */
export interface DossierManagementPlane {
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
  readonly oauth: OAuthService;
  /** People on a team (issue 42): invitations, accounts, sessions, password resets, single sign-on accounts. */
  readonly people: PeopleService;
}

/**
 * One Dossier instance: the whole service over its adapters, its data plane and its management plane. Call
 * `close()` when done: it drains the pipeline workers and releases every adapter.
 * @example
 * import { createDossier } from '@dossier/adapters';
 * const dossier = await createDossier({ dataDir: './data' });
 * const local = await dossier.local();
 * // …
 * await dossier.close();
 */
export interface Dossier extends DossierDataPlane, DossierManagementPlane {
  /** Embedding model of new collections, resolved at start (`none` when no model could be loaded: BM25 only). */
  readonly defaultEmbeddingModel: string;
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
