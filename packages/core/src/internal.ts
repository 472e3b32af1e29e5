/**
 * @dossier/core/internal: core's own wiring, for Dossier's packages (adapters, server, CLI, MCP), its benchmarks
 * and tests. Not a public API: anything here may change in any release. The public API is `@dossier/core`.
 */

export {
  cellsKey,
  collectionPrefix,
  markdownKey,
  originalKey,
  ownedBy,
  pageImageKey,
  pageImagesPrefix,
  pagesKey,
  regionsKey,
  requireAccess,
  requireCollection,
  requireDocument,
  uploadStagingKey,
} from './access.ts';
export { API_KEY_PREFIX, envOfApiKey, generateApiKey, generateOrgApiKey, isOrgApiKey, ORG_KEY_PREFIX } from './auth/api-keys.ts';
export { hasScope, sandboxOf } from './auth/principal.ts';
export { hashSecret, previewSecret } from './auth/secrets.ts';
export { MAX_CLAIMS_PER_DOCUMENT } from './claims/extract.ts';
export { DEFAULT_GROUPING, type GroupableClaim, groupClaims, type GroupingOptions } from './claims/grouping.ts';
export {
  CONVERSIONS_AT_ONCE,
  DEFAULT_PIPELINE_CONCURRENCY,
  DEFAULT_UPLOAD_CONCURRENCY,
  documentTopic,
  type DossierContext,
  eventsSaved,
  publishDocumentStatus,
  setDocumentStatus,
  SMALL_CONVERSIONS_AT_ONCE,
  SMALL_ORIGINAL_BYTES,
} from './context.ts';
export { WAIT_TIMEOUT_MS } from './documents/manage.ts';
export { DIRECT_UPLOAD_MAX_BYTES } from './documents/uploads.ts';
export { answersSearch, isReplacement } from './domain/types.ts';
export { checkDocument as checkDuplicateDocument } from './duplicates/check.ts';
export { duplicateProfile } from './duplicates/fingerprints.ts';
export { scoreDuplicatePair } from './duplicates/score.ts';
export { goldenQueriesFromBeir } from './evaluation/beir.ts';
export { type CitedPassage, type Faithfulness, faithfulness } from './evaluation/faithfulness.ts';
export { type Judgments, ndcgAt, percentile, rankKeys, recallAt, reciprocalRankAt, type RunMetrics, summarize } from './evaluation/metrics.ts';
export * as evaluationSchemas from './evaluation/schemas.ts';
export { compareRuns } from './evaluation/service.ts';
export { documentEventIn, type DocumentStatusMessage, documentStreamEvent, documentWebhookEvents, endpointReceives, serviceEvent } from './events/catalogue.ts';
export { chunkIdOf, chunkMarkdown, isTableChunk } from './ingest/chunk-document.ts';
export { chunkText, countTokens } from './ingest/chunker.ts';
export { htmlToMarkdown } from './ingest/converters/html.ts';
export { sniffType } from './ingest/converters/sniff.ts';
export { imageIdOf, imageUrl, replaceTracked, sectionIdOf, type TrackedOffsets } from './ingest/prepare.ts';
export { sectionMarkdown } from './ingest/sectioner.ts';
export { createJobRunner, type JobHandler, type JobRunner, type JobRunnerOptions, retryDelayMs } from './jobs/runner.ts';
export { noProviderError, unconfiguredResolver } from './models/not-configured.ts';
export { ACCEPTED_PREFIXES, displayModelId, mergeDefaults, OLLAMA_PREFIX, routeModel } from './models/router.ts';
export { CLIENT_AUTH_METHODS, GRANT_TYPES } from './oauth/schemas.ts';
export { isOAuthAccessToken, OAUTH_TOKEN_PREFIX, s256 } from './oauth/secrets.ts';
export { oauthService } from './oauth/service.ts';
export { peopleService } from './people/index.ts';
export { checkPasswordStrength } from './people/password-policy.ts';
export * as peopleSchemas from './people/schemas.ts';
export { keyedProvider, MANAGED_KEY_ENV, providerLabel, specProvider } from './providers/names.ts';
export { RESEARCH_HISTORY_LIMIT } from './research/service.ts';
export { scopedDossier } from './scoped.ts';
export { DEFAULT_RM3, queryTerms, type Rm3Options, rm3Weights, weightedQueryText } from './search/expansion.ts';
export { listwisePrompt, parseRanking } from './search/llm-reranker.ts';
export { reciprocalRankFusion } from './search/rrf.ts';
export { ContextWindow, type ToolOutput } from './tool-loop/context-window.ts';
export { type AgentEvent, type AgentLoopOptions, type AgentTool, runAgentLoop } from './tool-loop/loop.ts';
export { DEFAULT_RETRY, retryDelay, type RetryPolicy } from './tool-loop/retry.ts';
export { monthRange } from './usage/daily.ts';
export { billingPeriod } from './usage/quotas.ts';
export { canonicalJson, metadataPairs } from './util/canonical-json.ts';
export { isUuid, newId, stableId } from './util/ids.ts';
export { SharedCalls, type SharedCallsSpec } from './util/shared-calls.ts';
export { RESPONSE_BODY_BYTES, WEBHOOK_JOB } from './webhooks/delivery.ts';
export { DEFAULT_WEBHOOK_SCHEDULE, nextRetryDelayMs, WEBHOOK_MAX_RETRIES, type WebhookSchedule } from './webhooks/schedule.ts';
export { checkWebhookUrl, DEFAULT_DELIVERY_LIMIT } from './webhooks/service.ts';
export { newSigningSecret } from './webhooks/signing.ts';
