/**
 * @dossier/core: the domain of Dossier written against its ports. This root is the public API, a named list
 * (issue 35): the `Dossier` interface and its groups with their inputs and views (library users), what building a
 * Dossier takes (dependencies, settings, errors, the event catalogue, the parts core provides), and the ports
 * with their records (adapter authors; their conformance suites are in `@dossier/core/testing`).
 * Core's own wiring (its context, access helpers, job runner, storage keys, ranking maths) is on
 * `@dossier/core/internal`, for Dossier's own packages only: it may change in any release.
 */

// ---- The library API: Dossier, its groups, their inputs and views ----
export type { Access, Intent } from './access.ts';
export type { AgentProgress, AgentRunOutcome, AgentStreamEvent, AgentSyncResult } from './agents/events.ts';
export type { AgentCaller } from './agents/invocation.ts';
export type { AgentRunStepView, AgentRunView } from './agents/runs.ts';
export type { AgentView, ProjectPath } from './agents/service.ts';
export type { AgentRunService, AgentsApi, AgentService } from './api/agents.ts';
export type { AuthService } from './api/auth.ts';
export type { ClaimService } from './api/claims.ts';
export type { CollectionsApi, CollectionService, RecomputeService } from './api/collections.ts';
export type { DocumentImageService, DocumentsApi, DocumentService, UploadService } from './api/documents.ts';
export type { DuplicateService } from './api/duplicates.ts';
export type { EvaluationGuardView, EvaluationService, GoldenSetApi } from './api/evaluations.ts';
export type { IdempotencyService } from './api/idempotency.ts';
export type { KeyService } from './api/keys.ts';
export type { AdminProjectConnections, OAuthConnections, OAuthService } from './api/oauth.ts';
export type { OrgService } from './api/orgs.ts';
export type { AccountService, InvitationPreview, InvitationService, PeopleService, SsoAccounts } from './api/people.ts';
export type { ProviderKeyService } from './api/provider-keys.ts';
export type { ResearchService } from './api/research.ts';
export type { ChunkView, ScanResults, SearchService, SectionWithContent } from './api/search.ts';
export type { SourceService } from './api/sources.ts';
export type { WebhookService } from './api/webhooks.ts';
export type { SessionClaims } from './auth/jwt.ts';
export type { ApiKeyView } from './auth/key-service.ts';
export type { CreatedProject } from './auth/org-service.ts';
export type { OrgRole } from './auth/roles.ts';
export type { BootstrapResult, SignedIn, SignInMeta } from './auth/service.ts';
export type { MapProgress } from './claims/map.ts';
export type { ClaimView, ContradictionListQuery, ContradictionRunView, ContradictionView } from './claims/service.ts';
export type { CollectionStats, CollectionView, PublicCollectionView } from './collections/service.ts';
export type { ImageView } from './documents/images.ts';
export type { SectionView } from './documents/manage.ts';
export type { PageImage } from './documents/page-images.ts';
export type { PageSpan } from './documents/pages.ts';
export type { DirectUpload, UploadUrlResult } from './documents/uploads.ts';
export type { DocumentView } from './documents/view.ts';
export type {
  Bound,
  Dossier,
  DossierDataPlane,
  DossierManagementPlane,
  EventsApi,
  LimitsApi,
  ScopedCollections,
  ScopedDocuments,
  ScopedDossier,
  UsageApi,
} from './dossier-api.ts';
export type { DuplicateComparison } from './duplicates/compare.ts';
export type { DuplicateGroupView, DuplicateRunView } from './duplicates/service.ts';
export type {
  AcceptProposalInput,
  CreateGoldenSetInput,
  EvaluationComparisonView,
  EvaluationGuardInput,
  EvaluationRunSummaryView,
  EvaluationRunView,
  GoldenProposalView,
  GoldenSetView,
  ProposeQuestionsInput,
  RunEvaluationInput,
  UpdateGoldenSetInput,
} from './evaluation/schemas.ts';
export type { GoldenSetUpload, UploadedSetFile } from './evaluation/upload.ts';
export type { IdempotencyStart } from './idempotency/service.ts';
export type { CheckedAuthorization, ConsentChoice, OAuthEndpoint } from './oauth/authorize.ts';
export type { ClientCredentials, ClientInformation } from './oauth/clients.ts';
export type { ConnectedClient } from './oauth/connections.ts';
export type { PagePurpose } from './oauth/page-session.ts';
export type { GrantableSandbox } from './oauth/sandboxes.ts';
export type { TokenResponse } from './oauth/tokens.ts';
export type { IssuedReset, SessionView } from './people/accounts.ts';
export type { InvitationView } from './people/invitations.ts';
export type { SsoIdentity, SsoPolicy } from './people/sso.ts';
export type { ProviderKeyView } from './providers/keys.ts';
export type { ResearchAnswer, ResearchEvent, ResearchProgress, ResearchSession } from './research/events.ts';
export * as responses from './responses.ts';
export * as schemas from './schemas.ts';
export type {
  CreateCollectionInput,
  CreateProviderKeyInput,
  DocumentPatchInput,
  FilenameSearchInput,
  ListDocumentsInput,
  ManifestQueryInput,
  QueryInput,
  ResearchInput,
  ScanInput,
  UpdateCollectionInput,
  UploadUrlInput,
} from './schemas.ts';
export { DEFAULT_RETRIEVAL, type FoundBy, type QueryHit, type RetrievalSettings } from './search/query.ts';
export type { SourceView } from './sources/service.ts';
export type { DailyMeter, UsageDaily, UsageDay } from './usage/daily.ts';
export type { Sandbox, UsageMeters } from './usage/quotas.ts';
export type { WebhookCaller, WebhookDeliveryView, WebhookEndpointView } from './webhooks/service.ts';

// ---- Building a Dossier: dependencies, settings, errors, events and the parts core provides ----
export { OAUTH_SCOPE_DESCRIPTIONS, OAUTH_SCOPES, type OAuthScope, type Principal, PRINCIPAL_KINDS, type PrincipalKind } from './auth/principal.ts';
export { createSecretBox, type SecretBox } from './auth/secrets.ts';
export { type ChunkingRunner, type ConversionRunner, type DossierDeps, type Logger, type PageRenderer, type PageRenderInput, silentLogger } from './context.ts';
export { createDossierCore, type DossierCore } from './dossier.ts';
export { featureHashingDimension, FeatureHashingEmbedder } from './embedding/feature-hashing.ts';
export { EvaluationGuardRefusal } from './evaluation/guard.ts';
export { EVENT_TYPES, type EventData, type EventType, isEventType, type ServiceEvent, type WebhookBody } from './events/catalogue.ts';
export { InProcessEventBus } from './events/in-process-bus.ts';
export { chunkDocument, type ChunkInput, type DraftChunkRow, type SectionSpan } from './ingest/chunk-document.ts';
export { ConverterRegistry, defaultConverters } from './ingest/converters/registry.ts';
export type { CellRegion, Converter, ConvertInput, ConvertResult, ExtractedImage, TextRegion } from './ingest/converters/types.ts';
export { type PrepareChunking, type PreparedDocument, type PreparedImage, prepareDocument, type PrepareInput } from './ingest/prepare.ts';
export { memoryConcurrencyGate } from './limits/memory-gate.ts';
export { createModelResolver, type ManagedProviders, type ModelResolverDeps } from './models/resolver.ts';
export { DEFAULT_MODELS, type ModelDefaults, type ModelRoute, type RouteOptions } from './models/router.ts';
export type { ModelResolver, ModelTier, ResolvedModel } from './models/types.ts';
export { isOAuthError, OAuthError, type OAuthErrorCode, OAuthRedirectError } from './oauth/errors.ts';
export { DEFAULT_OAUTH_SETTINGS, type OAuthSettings } from './oauth/settings.ts';
export { DEFAULT_PEOPLE_SETTINGS, type PeopleSettings } from './people/settings.ts';
export { PROVIDER_SPELLINGS, type ProviderSpelling, type SpecProvider } from './providers/names.ts';
export { DEFAULT_INPUT_BUDGETS, DEFAULT_TIME_LIMITS_MS, type DepthSettings, RESEARCH_DEPTHS, type ResearchToolName } from './research/depths.ts';
export { DEFAULT_RESEARCH_SETTINGS, type ResearchSettings } from './research/run.ts';
export { createLlmReranker, type LlmRerankerOptions } from './search/llm-reranker.ts';
export { type Plan, type PlanBook, planBook, type PlanFile, planFileSchema, UNLIMITED_PLAN, unlimitedPlans } from './usage/plans.ts';
export { checkBlobKey, checkBlobPrefix } from './util/blob-keys.ts';
export { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks/delivery.ts';
export { signBody, verifySignature } from './webhooks/signing.ts';

// ---- Ports and their records (adapter authors; conformance suites in @dossier/core/testing) ----
export {
  AGENT_RUN_STATUSES,
  AGENT_SLUG_PATTERN,
  AGENT_STEP_KINDS,
  AGENT_TIMEOUT_DEFAULT_MS,
  AGENT_TIMEOUT_MAX_MS,
  AGENT_TOOLS,
  type AgentContradictionFlag,
  type AgentPatch,
  type AgentRecord,
  type AgentRunEndStatus,
  type AgentRunRecord,
  type AgentRunSource,
  type AgentRunStatus,
  type AgentRunStepRecord,
  type AgentSnapshot,
  type AgentStepKind,
  type AgentToolName,
  type AgentToolset,
  type JsonSchemaObject,
} from './domain/agents.ts';
export {
  type ClaimMapItem,
  type ClaimRecord,
  CONTRADICTION_RUN_STATUSES,
  CONTRADICTION_SEVERITIES,
  CONTRADICTION_STATUSES,
  type ContradictionClaimRef,
  type ContradictionRecord,
  type ContradictionRunRecord,
  type ContradictionRunStatus,
  type ContradictionSeverity,
  type ContradictionStatus,
} from './domain/claims.ts';
export {
  DUPLICATE_RELATIONSHIPS,
  DUPLICATE_RUN_STATUSES,
  type DuplicateFingerprints,
  type DuplicateGroupRecord,
  type DuplicateMemberRecord,
  type DuplicateRelationship,
  type DuplicateRunRecord,
  type DuplicateRunStatus,
  type PassageSpan,
  type SharedPassage,
} from './domain/duplicates.ts';
export { DossierError, type DossierErrorCode, invalid, isDossierError, notFound } from './domain/errors.ts';
export {
  type Account,
  type ApiKeyRecord,
  type CellRange,
  type ChunkRecord,
  type Collection,
  DOCUMENT_STATUSES,
  type DocumentEvent,
  type DocumentImageRecord,
  type DocumentRecord,
  type DocumentStatus,
  type Env,
  ENVS,
  type JsonValue,
  type KeyedProvider,
  type Metadata,
  type Org,
  type OrgApiKeyRecord,
  type PageBox,
  type PassageLocation,
  type Project,
  type ProviderKeyRecord,
  QUERY_EXPANSIONS,
  type QueryExpansion,
  RESEARCH_DEPTH_NAMES,
  type ResearchDepth,
  type ResearchSessionRecord,
  type ResearchSource,
  type RetrievalFilter,
  type RunUsage,
  type SectionRecord,
  type SummaryType,
  type TableChunkRecord,
  TERMINAL_STATUSES,
  type UsageMeter,
  type Visibility,
} from './domain/types.ts';
export type { AccountStore } from './ports/account-store.ts';
export type { AgentStore } from './ports/agent-store.ts';
export { BLOB_STORE_SPEC_VERSION, type BlobStat, type BlobStore, type ClientUploads, type PutOptions } from './ports/blob-store.ts';
export {
  CHUNK_INDEX_SPEC_VERSION,
  type ChunkHitRow,
  type ChunkIndex,
  type ChunkIndexCapabilities,
  type ChunkIndexErrorCode,
  type ChunkRow,
  type DocumentAttributes,
  type IndexHit,
  type IndexSearchOptions,
  type PassageText,
  type SectionRow,
  type UpsertOptions,
} from './ports/chunk-index.ts';
export type { ClaimStore, ContradictionFilter } from './ports/claim-store.ts';
export type { CollectionCounts, CollectionPatch, CollectionStore } from './ports/collection-store.ts';
export { type AcquireResult, CONCURRENCY_GATE_SPEC_VERSION, type ConcurrencyGate, type Lease } from './ports/concurrency-gate.ts';
export type { DocumentFilter, DocumentListQuery, DocumentPatch, DocumentStore } from './ports/document-store.ts';
export type { DuplicateStore, FingerprintMatch } from './ports/duplicate-store.ts';
export { type Embedder, EMBEDDER_SPEC_VERSION, type EmbedderProvider } from './ports/embedder.ts';
export type { EnrichStore } from './ports/enrich-store.ts';
export type {
  EvaluationGuardRecord,
  EvaluationRunRecord,
  EvaluationSettings,
  EvaluationStore,
  EvaluationTrigger,
  ExpectedTarget,
  GoldenJudgment,
  GoldenMatch,
  GoldenQuery,
  GoldenSetRecord,
  QueryResult,
} from './ports/evaluation-store.ts';
export { EVENT_BUS_SPEC_VERSION, type EventBus, type Unsubscribe } from './ports/event-bus.ts';
export type { GoldenProposalRecord, GoldenProposalStore } from './ports/golden-proposal-store.ts';
export type { IdempotencyRecord, IdempotencyStore } from './ports/idempotency-store.ts';
export type { ImageStore } from './ports/image-store.ts';
export { type Job, JOB_QUEUE_SPEC_VERSION, type JobQueue, type JobState, type NewJob } from './ports/job-queue.ts';
export type { KeyStore } from './ports/key-store.ts';
export { METADATA_STORE_SPEC_VERSION, type MetadataStore } from './ports/metadata-store.ts';
export { composeMetadataStore, type MetadataStoreParts, STORE_PART_METHODS } from './ports/store-parts.ts';
export type {
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  ContentPart,
  ModelProvider,
  ModelProviderFactory,
  ProviderCredentials,
  ProviderName,
  StopReason,
  TokenUsage,
  ToolCall,
  ToolDefinition,
} from './ports/model-provider.ts';
export type {
  OAuthClientAuthMethod,
  OAuthClientRecord,
  OAuthCodeRecord,
  OAuthGrantRecord,
  OAuthGrantTerms,
  OAuthStore,
  OAuthTokenRecord,
} from './ports/oauth-store.ts';
export type {
  AccountSessionRecord,
  InvitationRecord,
  MemberRole,
  PasswordResetRecord,
  PeopleStore,
  SessionMethod,
  SsoLoginRecord,
} from './ports/people-store.ts';
export type { ProviderKeyStore } from './ports/provider-key-store.ts';
export { RATE_LIMITER_SPEC_VERSION, type RateDecision, type RateLimiter, type RateLimiterFactory, type RateSpec } from './ports/rate-limiter.ts';
export type { RerankCandidate, Reranker } from './ports/reranker.ts';
export type { ResearchStore, SandboxTotals, UsageStore } from './ports/research-store.ts';
export type { SectionStore } from './ports/section-store.ts';
export type { S3SourceConfig, S3SourceOpener, SourceEntry, SourceReader } from './ports/source-reader.ts';
export type { CollectionSourceStore, ManifestEntry, SourceDocumentStore } from './ports/source-store.ts';
export type { OrgMember, TenancyStore } from './ports/tenancy-store.ts';
export type { WebhookRequest, WebhookResponse, WebhookSender } from './ports/webhook-sender.ts';
export type {
  WebhookAttemptOutcome,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointPatch,
  WebhookEndpointRecord,
  WebhookStore,
} from './ports/webhook-store.ts';
export type { SourceKind, SourceRecord, SourceRunRecord, SourceRunStatus } from './sources/types.ts';
