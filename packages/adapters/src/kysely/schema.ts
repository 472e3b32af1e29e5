import type { ColumnType, Generated } from 'kysely';
import type { ORG_ROLES } from '@dossier/core/vocabulary';

type OrgRole = (typeof ORG_ROLES)[number];

/**
 * Table shapes of the metadata store as Kysely sees them. Column names are snake_case; the types are the
 * union of what SQLite and Postgres return, so the query code in this folder stays dialect-neutral.
 */

/** A boolean column: INTEGER 0/1 in SQLite, BOOLEAN in Postgres. */
export type DbBool = number | boolean;
/** A JSON column: TEXT in SQLite (parsed by us), JSONB in Postgres (parsed by the driver). */
export type DbJson = string | object;

export interface AccountsTable {
  id: string;
  email: string;
  /** email.toLowerCase(), unique: case-insensitive identity without relying on SQL lower() (ASCII-only in SQLite). */
  email_normalized: string;
  password_hash: string;
  created_at: string;
  /** Tokens of another epoch are refused (issue 9: password change, log out everywhere). */
  token_epoch: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface OrgsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface MembershipsTable {
  org_id: string;
  account_id: string;
  role: OrgRole;
}

export interface ProjectsTable {
  id: string;
  org_id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  env: string;
  key_hash: string;
  key_encrypted: string;
  key_preview: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface OrgApiKeysTable {
  id: string;
  org_id: string;
  name: string | null;
  key_hash: string;
  key_encrypted: string;
  key_preview: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CollectionsTable {
  id: string;
  project_id: string;
  env: string;
  name: string;
  visibility: string;
  description: string | null;
  chunk_size: number;
  chunk_overlap: number;
  embedding_model: string;
  embedding_dimension: number | null;
  enable_summarization: DbBool;
  enable_captioning: DbBool;
  enable_reranking: DbBool;
  enable_deduplication: DbBool;
  suppress_contradictions_by_metadata: DbBool;
  suppress_intra_document_contradictions: DbBool;
  llm_model: string | null;
  query_expansion: string | null;
  duplicate_threshold: number | null;
  instructions: string | null;
  created_at: string;
  deleted_at: string | null;
}

export interface DocumentsTable {
  id: string;
  collection_id: string;
  filename: string;
  content_type: string | null;
  status: string;
  file_size_bytes: number | null;
  section_count: number | null;
  chunk_count: number | null;
  content_hash: string | null;
  storage_key: string | null;
  markdown_storage_key: string | null;
  derived_bytes: number | null;
  error_message: string | null;
  tags: DbJson;
  metadata: DbJson;
  chunk_size: number;
  chunk_overlap: number;
  canonical: DbBool;
  created_at: string;
  updated_at: string;
  source_path: string | null;
  source_stamp: string | null;
  version: number;
  deleted_at: string | null;
  /** 0046: a pending presigned upload that replaces this document's content when confirmed. */
  replaces_document_id: string | null;
}

export interface SectionsTable {
  id: string;
  document_id: string;
  collection_id: string;
  title: string;
  level: number;
  position: number;
  summary: string | null;
  summary_type: string | null;
  /** The extractive summary kept aside while `summary` holds an AI summary (restored by a summaries recompute). */
  extractive_summary: string | null;
  chunk_count: number;
  markdown_offset_start: number;
  markdown_offset_end: number;
}

export interface DocumentImagesTable {
  id: string;
  document_id: string;
  section_id: string | null;
  placeholder: string;
  mime_type: string;
  caption: string | null;
  position: number;
  byte_size: number;
}

export interface TableChunksTable {
  chunk_id: string;
  document_id: string;
  section_id: string;
  section_position: number;
  chunk_position: number;
  content: string;
  caption: string | null;
}

/** Research sessions; `sources` is the frozen ResearchSource[] snapshot as JSON. */
export interface ResearchSessionsTable {
  id: string;
  collection_id: string;
  query: string;
  response: string;
  depth: string;
  model: string;
  sources: DbJson;
  /** JSON array of marker strings. */
  unresolved_citations: DbJson;
  /** JSON RunUsage, or null. */
  usage: DbJson | null;
  created_at: string;
}

/** Append-only usage meter entries (one row per metered event). */
export interface UsageEventsTable {
  project_id: string;
  env: string;
  meter: string;
  amount: number;
  at: string;
}

/** A project's own model provider keys (key_encrypted is AES-256-GCM ciphertext; the plaintext is never stored). */
export interface ProviderKeysTable {
  id: string;
  project_id: string;
  /** live or test (issue 9: each sandbox has its own provider keys). */
  env: string;
  provider: string;
  name: string;
  key_encrypted: string;
  key_preview: string;
  created_at: string;
}

/** Claims of ready documents (issue 15); position orders them within the document. */
export interface ClaimsTable {
  id: string;
  collection_id: string;
  document_id: string;
  section_id: string;
  section_title: string;
  text: string;
  source_text: string | null;
  importance: number;
  position: number;
  created_at: string;
}

/** Documents whose claims were extracted (also when none were found), for the stats counters. */
export interface ClaimExtractionsTable {
  document_id: string;
  collection_id: string;
  claim_count: number;
  extracted_at: string;
}

/** The cached claim map of a collection, valid while its claims version is unchanged. */
export interface ClaimMapsTable {
  collection_id: string;
  version: string;
  items: DbJson;
  created_at: string;
}

export interface ContradictionRunsTable {
  id: string;
  collection_id: string;
  status: string;
  claims_processed: number | null;
  clusters_analyzed: number | null;
  contradictions_found: number | null;
  model: string | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  created_at: string;
}

export interface ContradictionsTable {
  id: string;
  collection_id: string;
  severity: string;
  status: string;
  explanation: string;
  cluster_topic_summary: string | null;
  suggested_instruction: string | null;
  claims: DbJson;
  fingerprint: string;
  created_at: string;
}

/** Which documents each contradiction touches (for the documentId filter and the files aggregation). */
export interface ContradictionDocumentsTable {
  contradiction_id: string;
  document_id: string;
}

/** Fingerprints of a document (issue 14): its shingle count and the sampled shingle hashes it is found by. */
export interface DuplicateDocumentsTable {
  document_id: string;
  collection_id: string;
  shingle_count: number;
  fingerprint_count: number;
  /** The fingerprints as a JSON array (migration 0070; null on rows written before it). */
  fingerprints: string | null;
}

export interface DuplicateFingerprintsTable {
  collection_id: string;
  fingerprint: number;
  document_id: string;
}

export interface DuplicateGroupsTable {
  id: string;
  collection_id: string;
  canonical_document_id: string;
  detected_at: string;
}

export interface DuplicateMembersTable {
  group_id: string;
  document_id: string;
  relationship: string;
  coverage_to_canonical: number | null;
  coverage_from_canonical: number | null;
  /** JSON of SharedPassage[]; null for the canonical and for members grouped before migration 0040. */
  shared_passages: string | null;
}

export interface DuplicateDismissalsTable {
  collection_id: string;
  left_document_id: string;
  right_document_id: string;
}

export interface DuplicateRunsTable {
  id: string;
  collection_id: string;
  status: string;
  jobs_enqueued: number | null;
  jobs_processed: number | null;
  duplicates_detected: number | null;
  duplicate_groups_created: number | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  created_at: string;
}

export interface AgentsTable {
  id: string;
  project_id: string;
  slug: string;
  name: string;
  description: string | null;
  system_prompt: string;
  model: string;
  timeout_ms: number;
  /** JSON AgentToolset. */
  toolset: DbJson;
  /** JSON array of collection ids, or null for every collection. */
  allowed_collection_ids: DbJson | null;
  /** JSON Schema object, or null. */
  output_schema: DbJson | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface AgentRunsTable {
  id: string;
  agent_id: string;
  project_id: string;
  query: string;
  document_id: string | null;
  status: string;
  response: string;
  /** JSON array of AgentRunSource. */
  sources: DbJson;
  /** JSON array of AgentContradictionFlag. */
  contradiction_flags: DbJson;
  /** JSON array of strings. */
  warnings: DbJson;
  /** JSON `{value}` when a structured output was produced, else null. */
  structured_output: DbJson | null;
  iterations_used: number;
  error: string | null;
  /** JSON RunUsage, or null. */
  usage: DbJson | null;
  /** JSON Agent view at invocation time. */
  agent_snapshot: DbJson;
  created_by: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface AgentRunStepsTable {
  run_id: string;
  step_index: number;
  kind: string;
  tool: string | null;
  collection_id: string | null;
  /** JSON object. */
  content: DbJson;
  created_at: string;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  fingerprint: string;
  state: string;
  status: number | null;
  body: string | null;
  created_at: string;
}

/** OAuth 2.1 authorization server (issue 18): registered clients, codes, grants and tokens (hashes only). */
export interface OAuthClientsTable {
  id: string;
  name: string | null;
  redirect_uris: string;
  auth_method: string;
  secret_hash: string | null;
  metadata: string;
  created_at: string;
}

/** Columns a code and a grant share: what the consent granted. */
interface OAuthTermsColumns {
  client_id: string;
  account_id: string;
  project_id: string;
  env: string;
  scopes: string;
  resource: string;
}

export interface OAuthCodesTable extends OAuthTermsColumns {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface OAuthGrantsTable extends OAuthTermsColumns {
  id: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: string;
  expires_at: string;
  created_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

export interface MetadataDatabase {
  accounts: AccountsTable;
  orgs: OrgsTable;
  memberships: MembershipsTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  org_api_keys: OrgApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_grants: OAuthGrantsTable;
  oauth_tokens: OAuthTokensTable;
  provider_keys: ProviderKeysTable;
  collections: CollectionsTable;
  documents: DocumentsTable;
  sections: SectionsTable;
  document_images: DocumentImagesTable;
  table_chunks: TableChunksTable;
  research_sessions: ResearchSessionsTable;
  usage_events: UsageEventsTable;
  claims: ClaimsTable;
  claim_extractions: ClaimExtractionsTable;
  claim_maps: ClaimMapsTable;
  contradiction_runs: ContradictionRunsTable;
  contradictions: ContradictionsTable;
  contradiction_documents: ContradictionDocumentsTable;
  duplicate_documents: DuplicateDocumentsTable;
  duplicate_fingerprints: DuplicateFingerprintsTable;
  duplicate_groups: DuplicateGroupsTable;
  duplicate_members: DuplicateMembersTable;
  duplicate_dismissals: DuplicateDismissalsTable;
  duplicate_runs: DuplicateRunsTable;
  agents: AgentsTable;
  agent_runs: AgentRunsTable;
  agent_run_steps: AgentRunStepsTable;
  golden_sets: GoldenSetsTable;
  evaluation_runs: EvaluationRunsTable;
  evaluation_guards: EvaluationGuardsTable;
  golden_proposals: GoldenProposalsTable;
  webhook_endpoints: WebhookEndpointsTable;
  collection_sources: CollectionSourcesTable;
  source_runs: SourceRunsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  invitations: InvitationsTable;
  account_sessions: AccountSessionsTable;
  password_resets: PasswordResetsTable;
  sso_identities: SsoIdentitiesTable;
  sso_logins: SsoLoginsTable;
}

export interface WebhookEndpointsTable {
  id: string;
  project_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  enabled: DbBool;
  /** Deliver test-sandbox events too (0033_webhook_env; default false). */
  receive_test_events: DbBool;
  description: string | null;
  secret_encrypted: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  project_id: string;
  event_type: string;
  /** Sandbox of the event, `live` or `test` (0033_webhook_env; rows before it are live). */
  env: string;
  created: number;
  /** JSON object: the body's `data`. */
  data: string;
  status: string;
  attempts: number;
  last_attempt_at: string | null;
  response_status: number | null;
  response_body: string | null;
  next_attempt_at: string | null;
  /** Attempt number the last queued job is for (0: none yet). */
  queued_attempt: number;
  queued_at: string | null;
  created_at: string;
}

export interface WebhookAttemptsTable {
  seq: Generated<number>;
  delivery_id: string;
  attempt: number;
  at: string;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number;
}

/** Issue 42: invitations to an org (token stored as sha256 hex). */
export interface InvitationsTable {
  id: string;
  org_id: string;
  email: string;
  email_normalized: string;
  role: OrgRole;
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

/** Issue 42: signed-in sessions named by the `sid` of management-plane JWTs. */
export interface AccountSessionsTable {
  id: string;
  account_id: string;
  method: string;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** Issue 42: one-time password reset links (token stored as sha256 hex). */
export interface PasswordResetsTable {
  token_hash: string;
  account_id: string;
  issued_by: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Issue 42: an identity provider's subject linked to an account. */
export interface SsoIdentitiesTable {
  issuer: string;
  subject: string;
  account_id: string;
  created_at: string;
}

/** Issue 42: single sign-on attempts between the redirect and the callback (state stored as sha256 hex). */
export interface SsoLoginsTable {
  state_hash: string;
  provider_id: string;
  code_verifier: string;
  nonce: string;
  context: string | null;
  created_at: string;
  expires_at: string;
}

/** Issue 43: sources a server syncs into collections. */
export interface CollectionSourcesTable {
  id: string;
  collection_id: string;
  kind: string;
  location: string;
  settings: DbJson;
  credentials_encrypted: string | null;
  interval_minutes: number | null;
  max_delete_share: number;
  paused: DbBool;
  next_run_at: string | null;
  created_at: string;
  updated_at: string;
  /** Who runs the source now, and until when (0046): a lease, renewed while the run goes on. */
  run_lock_owner?: string | null;
  run_lock_until?: string | null;
}

/** Issue 43: one sync of a source, with its counters. */
export interface SourceRunsTable {
  id: string;
  source_id: string;
  collection_id: string;
  status: string;
  trigger: string;
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  failed: number;
  details: DbJson;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

/** Issue 38: one version of a golden set (editing a set inserts the next version). */
export interface GoldenSetsTable {
  id: string;
  version: number;
  collection_id: string;
  name: string;
  match_by: string;
  /** JSON GoldenQuery[]. */
  queries: DbJson;
  created_at: string;
}

/** Issue 38: an evaluation run with its metrics and per-query results. */
export interface EvaluationRunsTable {
  id: string;
  collection_id: string;
  set_id: string;
  set_version: number;
  trigger: string;
  settings: DbJson;
  metrics: DbJson;
  per_query: DbJson;
  created_at: string;
  /** running | completed | failed (migration 0057: runs on a shadow copy are queued). */
  status: string;
  error: string | null;
  /** JSON EvaluationProgress or null. */
  progress: string | null;
  shadow_index: string | null;
}

/** Issue 38: the golden set and margin that guard a collection's query-time settings. */
export interface EvaluationGuardsTable {
  collection_id: string;
  set_id: string;
  max_ndcg_drop: number;
  updated_at: string;
}

/** Issue 38: a question the fast model drafted from a section, waiting for a person's decision. */
export interface GoldenProposalsTable {
  id: string;
  collection_id: string;
  document_id: string;
  section_id: string;
  section_title: string;
  excerpt: string;
  question: string;
  status: string;
  set_id: string | null;
  set_version: number | null;
  created_at: string;
  decided_at: string | null;
}
