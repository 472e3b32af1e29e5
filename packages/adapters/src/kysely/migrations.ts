import { DossierError } from '@dossier/core';
import type { ColumnDataType, ColumnDefinitionBuilder, CreateTableBuilder, Migration } from 'kysely';
import { type Kysely, Migrator, sql } from './runtime.ts';

/**
 * Versioned migrations of the metadata store, one list for every dialect: each step describes its tables once and
 * a dialect supplies the column types that differ (SQLite's INTEGER booleans and TEXT JSON, Postgres's BOOLEAN,
 * JSONB and BIGINT). Kysely's Migrator records applied names in `metadata_migrations` and runs only the pending
 * ones, in name order, so migrate() is safe on every start. Never edit a released migration: add the next one.
 */

// The schema builder is untyped by design: migrations describe tables that the typed schema (schema.ts) then reads.
type Db = Kysely<unknown>;

/** The column types that differ by dialect; text columns are `text` everywhere. */
export interface ColumnTypes {
  /** A whole number (64-bit in both: SQLite INTEGER, Postgres BIGINT). */
  integer: ColumnDataType;
  /** A 64-bit float (SQLite REAL, Postgres DOUBLE PRECISION: Postgres REAL would be 32-bit). */
  real: ColumnDataType;
  /** A DbBool column. */
  bool: ColumnDataType;
  /** A DbJson column. */
  json: ColumnDataType;
  /** The default value `true` of a bool column. */
  true: 1 | true;
  /** The default value `false` of a bool column. */
  false: 0 | false;
  /** An integer primary key the database numbers. */
  autoIncrementKey(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** A table stored in the order of its primary key, with no row ids beside it (SQLite WITHOUT ROWID; a Postgres table as is). */
  keyOrdered<T extends string, C extends string>(table: CreateTableBuilder<T, C>): CreateTableBuilder<T, C>;
}

export const SQLITE_COLUMN_TYPES: ColumnTypes = {
  integer: 'integer',
  real: 'real',
  bool: 'integer',
  json: 'text',
  true: 1,
  false: 0,
  autoIncrementKey: (column) => column.primaryKey().autoIncrement(),
  keyOrdered: (table) => table.modifyEnd(sql`without rowid`),
};

export const POSTGRES_COLUMN_TYPES: ColumnTypes = {
  integer: 'bigint',
  real: 'double precision',
  bool: 'boolean',
  json: 'jsonb',
  true: true,
  false: false,
  autoIncrementKey: (column) => column.primaryKey().generatedByDefaultAsIdentity(),
  keyOrdered: (table) => table,
};

async function createTenancyTables(db: Db): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_normalized', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('orgs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('memberships')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'member')`))
    .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'account_id'])
    .execute();
  await db.schema.createIndex('memberships_account').on('memberships').column('account_id').execute();
}

async function createProjectsTable(db: Db): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('projects_org').on('projects').columns(['org_id', 'created_at']).execute();
}

async function createApiKeysTable(db: Db): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_encrypted', 'text', (c) => c.notNull())
    .addColumn('key_preview', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
}

async function createCollectionsTable(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('collections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('chunk_size', t.integer, (c) => c.notNull())
    .addColumn('chunk_overlap', t.integer, (c) => c.notNull())
    .addColumn('embedding_model', 'text', (c) => c.notNull())
    .addColumn('embedding_dimension', t.integer)
    .addColumn('enable_summarization', t.bool, (c) => c.notNull())
    .addColumn('enable_captioning', t.bool, (c) => c.notNull())
    .addColumn('enable_reranking', t.bool, (c) => c.notNull())
    .addColumn('enable_deduplication', t.bool, (c) => c.notNull())
    .addColumn('suppress_contradictions_by_metadata', t.bool, (c) => c.notNull())
    .addColumn('suppress_intra_document_contradictions', t.bool, (c) => c.notNull())
    .addColumn('llm_model', 'text')
    .addColumn('instructions', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('collections_project_env').on('collections').columns(['project_id', 'env', 'created_at']).execute();
}

async function createDocumentsTable(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('file_size_bytes', t.integer)
    .addColumn('section_count', t.integer)
    .addColumn('chunk_count', t.integer)
    .addColumn('content_hash', 'text')
    .addColumn('storage_key', 'text')
    .addColumn('markdown_storage_key', 'text')
    .addColumn('error_message', 'text')
    .addColumn('tags', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('metadata', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('chunk_size', t.integer, (c) => c.notNull())
    .addColumn('chunk_overlap', t.integer, (c) => c.notNull())
    .addColumn('canonical', t.bool, (c) => c.notNull().defaultTo(t.true))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  const index = (name: string, columns: string[]) => db.schema.createIndex(name).on('documents').columns(columns).execute();
  await index('documents_collection_created', ['collection_id', 'created_at']);
  await index('documents_collection_status', ['collection_id', 'status']);
  await index('documents_collection_hash', ['collection_id', 'content_hash']);
}

async function createSectionsTable(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('sections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('level', t.integer, (c) => c.notNull())
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('summary_type', 'text')
    .addColumn('chunk_count', t.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('markdown_offset_start', t.integer, (c) => c.notNull())
    .addColumn('markdown_offset_end', t.integer, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sections_document').on('sections').columns(['document_id', 'position']).execute();
  await db.schema.createIndex('sections_collection').on('sections').column('collection_id').execute();
}

/** Images and table chunks found by conversion (issue 3). */
async function createImageAndTableChunkTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('document_images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('section_id', 'text')
    .addColumn('placeholder', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('caption', 'text')
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('byte_size', t.integer, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('document_images_document').on('document_images').columns(['document_id', 'position']).execute();
  await db.schema
    .createTable('table_chunks')
    .addColumn('chunk_id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('section_id', 'text', (c) => c.notNull())
    .addColumn('section_position', t.integer, (c) => c.notNull())
    .addColumn('chunk_position', t.integer, (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('caption', 'text')
    .execute();
  await db.schema.createIndex('table_chunks_document').on('table_chunks').columns(['document_id', 'section_position', 'chunk_position']).execute();
}

/** Research sessions with their frozen sources, and append-only usage meter entries (research issue). */
async function createResearchAndUsageTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('research_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('depth', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('sources', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('research_sessions_collection').on('research_sessions').columns(['collection_id', 'created_at']).execute();
  await db.schema
    .createTable('usage_events')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('meter', 'text', (c) => c.notNull())
    .addColumn('amount', t.real, (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('usage_events_project').on('usage_events').columns(['project_id', 'env', 'meter', 'at']).execute();
}

/** A project's own model provider keys (provider-keys issue); looked up newest first per project and provider. */
async function createProviderKeysTable(db: Db): Promise<void> {
  await db.schema
    .createTable('provider_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('anthropic', 'openai')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_encrypted', 'text', (c) => c.notNull())
    .addColumn('key_preview', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('provider_keys_project').on('provider_keys').columns(['project_id', 'provider', 'created_at']).execute();
}

async function createClaimTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('claims')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('section_id', 'text', (c) => c.notNull())
    .addColumn('section_title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('source_text', 'text')
    .addColumn('importance', t.integer, (c) => c.notNull())
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('claims_document').on('claims').columns(['document_id', 'position']).execute();
  await db.schema.createIndex('claims_collection').on('claims').column('collection_id').execute();
  await db.schema
    .createTable('claim_extractions')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('claim_count', t.integer, (c) => c.notNull())
    .addColumn('extracted_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('claim_extractions_collection').on('claim_extractions').column('collection_id').execute();
  await db.schema
    .createTable('claim_maps')
    .addColumn('collection_id', 'text', (c) => c.primaryKey().references('collections.id').onDelete('cascade'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('items', t.json, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

async function createContradictionTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('contradiction_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('claims_processed', t.integer)
    .addColumn('clusters_analyzed', t.integer)
    .addColumn('contradictions_found', t.integer)
    .addColumn('model', 'text')
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contradiction_runs_collection').on('contradiction_runs').columns(['collection_id', 'created_at']).execute();
  await db.schema
    .createTable('contradictions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('explanation', 'text', (c) => c.notNull())
    .addColumn('cluster_topic_summary', 'text')
    .addColumn('suggested_instruction', 'text')
    .addColumn('claims', t.json, (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('contradictions_fingerprint', ['collection_id', 'fingerprint'])
    .execute();
  await db.schema.createIndex('contradictions_list').on('contradictions').columns(['collection_id', 'status', 'created_at']).execute();
  await db.schema
    .createTable('contradiction_documents')
    .addColumn('contradiction_id', 'text', (c) => c.notNull().references('contradictions.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contradiction_documents_pk', ['contradiction_id', 'document_id'])
    .execute();
  await db.schema.createIndex('contradiction_documents_document').on('contradiction_documents').column('document_id').execute();
}

async function createDuplicateTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('collections').addColumn('duplicate_threshold', t.real).execute();
  await db.schema
    .createTable('duplicate_documents')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('shingle_count', t.integer, (c) => c.notNull())
    .addColumn('fingerprint_count', t.integer, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('duplicate_documents_collection').on('duplicate_documents').column('collection_id').execute();
  await db.schema
    .createTable('duplicate_fingerprints')
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', t.integer, (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('duplicate_fingerprints_lookup').on('duplicate_fingerprints').columns(['collection_id', 'fingerprint', 'document_id']).execute();
  await db.schema.createIndex('duplicate_fingerprints_document').on('duplicate_fingerprints').column('document_id').execute();
  await db.schema
    .createTable('duplicate_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('canonical_document_id', 'text', (c) => c.notNull())
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('duplicate_groups_collection').on('duplicate_groups').columns(['collection_id', 'detected_at']).execute();
  await db.schema
    .createTable('duplicate_members')
    .addColumn('group_id', 'text', (c) => c.notNull().references('duplicate_groups.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.primaryKey())
    .addColumn('relationship', 'text', (c) => c.notNull())
    .addColumn('coverage_to_canonical', t.real)
    .addColumn('coverage_from_canonical', t.real)
    .execute();
  await db.schema.createIndex('duplicate_members_group').on('duplicate_members').column('group_id').execute();
  await db.schema
    .createTable('duplicate_dismissals')
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('left_document_id', 'text', (c) => c.notNull())
    .addColumn('right_document_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('duplicate_dismissals_pk', ['left_document_id', 'right_document_id'])
    .execute();
  await db.schema
    .createTable('duplicate_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('jobs_enqueued', t.integer)
    .addColumn('jobs_processed', t.integer)
    .addColumn('duplicates_detected', t.integer)
    .addColumn('duplicate_groups_created', t.integer)
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('duplicate_runs_collection').on('duplicate_runs').columns(['collection_id', 'created_at']).execute();
}

async function createAgentsTable(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('system_prompt', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('timeout_ms', t.integer, (c) => c.notNull())
    .addColumn('toolset', t.json, (c) => c.notNull())
    .addColumn('allowed_collection_ids', t.json)
    .addColumn('output_schema', t.json)
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('agents_project_slug', ['project_id', 'slug'])
    .execute();
}

/** Issue 17: agent runs (with the agent's snapshot) and their steps; both go with the agent. */
async function createAgentRunTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('agent_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('sources', t.json, (c) => c.notNull())
    .addColumn('contradiction_flags', t.json, (c) => c.notNull())
    .addColumn('warnings', t.json, (c) => c.notNull())
    .addColumn('structured_output', t.json)
    .addColumn('iterations_used', t.integer, (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('usage', t.json)
    .addColumn('agent_snapshot', t.json, (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('agent_runs_agent').on('agent_runs').columns(['agent_id', 'created_at']).execute();
  await db.schema.createIndex('agent_runs_status').on('agent_runs').columns(['status', 'created_at']).execute();
  await db.schema
    .createTable('agent_run_steps')
    .addColumn('run_id', 'text', (c) => c.notNull().references('agent_runs.id').onDelete('cascade'))
    .addColumn('step_index', t.integer, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('tool', 'text')
    .addColumn('collection_id', 'text')
    .addColumn('content', t.json, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_run_steps_pk', ['run_id', 'step_index'])
    .execute();
}

/** Every migration step, keyed by a name that sorts in application order; each dialect runs it with its column types. */
const MIGRATION_STEPS: Record<string, (db: Db, t: ColumnTypes) => Promise<void>> = {
  '0001_initial': async (db, t) => {
    await createTenancyTables(db);
    await createProjectsTable(db);
    await createApiKeysTable(db);
    await createCollectionsTable(db, t);
    await createDocumentsTable(db, t);
    await createSectionsTable(db, t);
  },
  '0002_provider_keys': async (db) => {
    await createProviderKeysTable(db);
  },
  '0003_research_usage': async (db, t) => {
    await createResearchAndUsageTables(db, t);
  },
  '0004_images_table_chunks': async (db, t) => {
    await createImageAndTableChunkTables(db, t);
  },
  '0005_generated_summaries': async (db) => {
    // Post-ready AI summaries replace `summary`; the extractive one waits here for a recompute to restore it.
    await db.schema.alterTable('sections').addColumn('extractive_summary', 'text').execute();
  },
  '0006_collection_query_expansion': async (db) => {
    // Per-collection lexical query expansion (issue 4); null follows the server default.
    await db.schema.alterTable('collections').addColumn('query_expansion', 'text').execute();
  },
  '0012_research_usage_citations': async (db, t) => {
    // Issue 12: what a research run consumed, and the invented citation markers removed from its answer.
    await db.schema.alterTable('research_sessions').addColumn('usage', t.json).execute();
    await db.schema
      .alterTable('research_sessions')
      .addColumn('unresolved_citations', t.json, (c) => c.notNull().defaultTo('[]'))
      .execute();
  },
  '0015_claims_contradictions': async (db, t) => {
    await createClaimTables(db, t);
    await createContradictionTables(db, t);
  },
  '0016_near_duplicates': async (db, t) => {
    await createDuplicateTables(db, t);
  },
  '0019_agents': async (db, t) => {
    // Issue 17: hosted agents; slugs are unique per project.
    await createAgentsTable(db, t);
  },
  '0022_provider_key_sandboxes': async (db) => {
    // Issue 9: provider keys belong to a sandbox; keys added before (by either key) serve the live one.
    await db.schema
      .alterTable('provider_keys')
      .addColumn('env', 'text', (c) => c.notNull().defaultTo('live'))
      .execute();
  },
  '0023_api_key_management': async (db) => {
    // Issue 9: named keys with a last-used time, and org-scoped keys (dsk_org_…) that invoke hosted agents.
    await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
    await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
    await db.schema.createIndex('api_keys_project').on('api_keys').columns(['project_id', 'created_at']).execute();
    await db.schema
      .createTable('org_api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('name', 'text')
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_encrypted', 'text', (c) => c.notNull())
      .addColumn('key_preview', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
  },
  '0024_account_token_revocation': async (db) => {
    await db.schema.alterTable('accounts').addColumn('token_epoch', 'text').execute();
  },
  '0025_idempotency_keys': async (db, t) => {
    // Issue 11: creating requests sent with an Idempotency-Key answer once; a retry gets the first answer.
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('status', t.integer)
      .addColumn('body', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
      .execute();
  },
  '0026_oauth_server': async (db) => {
    await createOAuthTables(db);
  },
  '0027_document_derived_bytes': async (db, t) => {
    // Issue 11: storage sizes are counted with the writes (GET …/stats and the usage meter sum them) instead of walking files.
    await db.schema.alterTable('documents').addColumn('derived_bytes', t.integer).execute();
  },
  '0028_enrichment_count_indexes': async (db) => {
    // Collection stats count documents with a caption or a generated summary. Without these partial indexes each
    // count walked every table chunk, image and section of every document (measured: 8–34 ms per GET /v1/collections
    // on the event loop beside a 1,000,000-line CSV's table chunks); with them it reads only the captioned rows.
    await db.schema.createIndex('table_chunks_captioned').on('table_chunks').column('document_id').where(sql.ref('caption'), 'is not', null).execute();
    await db.schema.createIndex('document_images_captioned').on('document_images').column('document_id').where(sql.ref('caption'), 'is not', null).execute();
    await db.schema.createIndex('sections_generated_summary').on('sections').column('document_id').where(sql.ref('summary_type'), '=', 'generated').execute();
  },
  '0021_agent_runs': async (db, t) => {
    await createAgentRunTables(db, t);
  },
  '0017_webhooks': async (db, t) => {
    await createWebhookTables(db, t);
  },
  '0033_webhook_env': async (db, t) => {
    // Issue 33: events carry their sandbox; an endpoint receives test-sandbox events only when it asks for them.
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('receive_test_events', t.bool, (c) => c.notNull().defaultTo(t.false))
      .execute();
    await db.schema
      .alterTable('webhook_deliveries')
      .addColumn('env', 'text', (c) => c.notNull().defaultTo('live'))
      .execute();
  },
  '0040_duplicate_passages': async (db) => {
    // The passages a group member shares with its canonical (JSON), so a group shows why it was formed.
    await db.schema.alterTable('duplicate_members').addColumn('shared_passages', 'text').execute();
  },
  '0070_duplicate_fingerprint_lists': async (db) => {
    // Issue 40: a document's fingerprints as one JSON array beside its counts. A detection run's fingerprint jobs
    // write only these rows; its group job then rebuilds the collection's posting rows from them in one sorted
    // insert (NULL: a row from before, whose posting rows that rebuild leaves alone).
    await db.schema.alterTable('duplicate_documents').addColumn('fingerprints', 'text').execute();
  },
  '0071_duplicate_postings_by_key': async (db, t) => {
    // Issue 40: the posting rows in one B-tree ordered by (collection, fingerprint, document), with no row ids and
    // no per-document index (three B-trees before, the document one written in random order by a bulk insert).
    // A document's postings are found from its fingerprint list (0070), so lists missing from older rows are filled
    // in first; string_agg is in both dialects (SQLite 3.44+).
    await sql`
      update duplicate_documents set fingerprints = (
        select '[' || string_agg(cast(f.fingerprint as text), ',') || ']' from duplicate_fingerprints f where f.document_id = duplicate_documents.document_id)
      where fingerprints is null`.execute(db);
    await t
      .keyOrdered(
        db.schema
          .createTable('duplicate_postings')
          .addColumn('collection_id', 'text', (c) => c.notNull())
          .addColumn('fingerprint', t.integer, (c) => c.notNull())
          .addColumn('document_id', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('duplicate_postings_pk', ['collection_id', 'fingerprint', 'document_id']),
      )
      .execute();
    await sql`
      insert into duplicate_postings (collection_id, fingerprint, document_id)
      select distinct collection_id, fingerprint, document_id from duplicate_fingerprints`.execute(db);
    await db.schema.dropTable('duplicate_fingerprints').execute();
    await db.schema.alterTable('duplicate_postings').renameTo('duplicate_fingerprints').execute();
  },
  '0043_sources': async (db, t) => {
    await addDocumentSourceColumns(db, t);
    await createSourceTables(db, t);
  },
  '0046_source_sync': async (db) => {
    // Issue 43: a source's run lock, so two nodes never run the same source at once (owner and lease end).
    await db.schema.alterTable('collection_sources').addColumn('run_lock_owner', 'text').execute();
    await db.schema.alterTable('collection_sources').addColumn('run_lock_until', 'text').execute();
    // A presigned upload of new content for a synced document (files over 25 MB) names the document it replaces.
    await db.schema.alterTable('documents').addColumn('replaces_document_id', 'text').execute();
  },
  '0042_people': async (db) => {
    await createPeopleTables(db);
  },
  '0038_evaluations': async (db, t) => {
    // Issue 38: golden sets (one row per version), evaluation runs and a collection's evaluation guard.
    await createEvaluationTables(db, t);
  },
  '0057_evaluation_run_status': async (db) => {
    // Issue 38: a run on a shadow copy is queued; it is running until its job stores the metrics (or fails), and
    // names its shadow index table while that may exist, so a run interrupted by a crash still drops it.
    await db.schema
      .alterTable('evaluation_runs')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('completed'))
      .execute();
    await db.schema.alterTable('evaluation_runs').addColumn('error', 'text').execute();
    await db.schema.alterTable('evaluation_runs').addColumn('progress', 'text').execute();
    await db.schema.alterTable('evaluation_runs').addColumn('shadow_index', 'text').execute();
  },
  '0049_golden_proposals': async (db, t) => {
    // Issue 38: questions the fast model drafted from sections, for a person to accept, edit or reject.
    await db.schema
      .createTable('golden_proposals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
      .addColumn('document_id', 'text', (c) => c.notNull())
      .addColumn('section_id', 'text', (c) => c.notNull())
      .addColumn('section_title', 'text', (c) => c.notNull())
      .addColumn('excerpt', 'text', (c) => c.notNull())
      .addColumn('question', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('proposed', 'accepted', 'rejected')`))
      .addColumn('set_id', 'text')
      .addColumn('set_version', t.integer)
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text')
      .execute();
    await db.schema.createIndex('golden_proposals_collection').on('golden_proposals').columns(['collection_id', 'status', 'created_at']).execute();
  },
};

/**
 * Issue 43: a document knows where it came from (its path within a source, unique per collection), the stamp its
 * source gave it (an S3 ETag, or a file's size and modification time), its version (replacing its content adds one),
 * and when a sync removed it (soft: purged after a grace period).
 */
async function addDocumentSourceColumns(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('documents').addColumn('source_path', 'text').execute();
  await db.schema.alterTable('documents').addColumn('source_stamp', 'text').execute();
  await db.schema
    .alterTable('documents')
    .addColumn('version', t.integer, (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('documents').addColumn('deleted_at', 'text').execute();
  // Unique among live documents: a path deleted softly may come back as a new document during its grace period.
  await db.schema
    .createIndex('documents_collection_source_path')
    .on('documents')
    .columns(['collection_id', 'source_path'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema.createIndex('documents_deleted').on('documents').column('deleted_at').where(sql.ref('deleted_at'), 'is not', null).execute();
}

/** Issue 43: sources a server syncs into a collection (a folder on its disk or an S3 prefix), and their runs. */
async function createSourceTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('collection_sources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('folder', 's3')`))
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('settings', t.json, (c) => c.notNull())
    .addColumn('credentials_encrypted', 'text')
    .addColumn('interval_minutes', t.integer)
    .addColumn('max_delete_share', t.real, (c) => c.notNull())
    .addColumn('paused', t.bool, (c) => c.notNull())
    .addColumn('next_run_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('collection_sources_collection').on('collection_sources').columns(['collection_id', 'created_at']).execute();
  await db.schema
    .createTable('source_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('source_id', 'text', (c) => c.notNull().references('collection_sources.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('added', t.integer, (c) => c.notNull())
    .addColumn('updated', t.integer, (c) => c.notNull())
    .addColumn('deleted', t.integer, (c) => c.notNull())
    .addColumn('unchanged', t.integer, (c) => c.notNull())
    .addColumn('failed', t.integer, (c) => c.notNull())
    .addColumn('details', t.json, (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('source_runs_source').on('source_runs').columns(['source_id', 'started_at']).execute();
}

/** Issue 38: versioned golden sets of a collection, the runs scored against them, and the guard of settings changes. */
async function createEvaluationTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('golden_sets')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('version', t.integer, (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('match_by', 'text', (c) => c.notNull())
    .addColumn('queries', t.json, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('golden_sets_pk', ['id', 'version'])
    .execute();
  await db.schema.createIndex('golden_sets_collection').on('golden_sets').columns(['collection_id', 'created_at']).execute();
  await db.schema
    .createTable('evaluation_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('set_id', 'text', (c) => c.notNull())
    .addColumn('set_version', t.integer, (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('settings', t.json, (c) => c.notNull())
    .addColumn('metrics', t.json, (c) => c.notNull())
    .addColumn('per_query', t.json, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('evaluation_runs_collection').on('evaluation_runs').columns(['collection_id', 'created_at']).execute();
  await db.schema
    .createTable('evaluation_guards')
    .addColumn('collection_id', 'text', (c) => c.primaryKey().references('collections.id').onDelete('cascade'))
    .addColumn('set_id', 'text', (c) => c.notNull())
    .addColumn('max_ndcg_drop', t.real, (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

/** Issue 16: webhook endpoints, the delivery outbox (one row per event and endpoint) and its attempt log. */
async function createWebhookTables(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('enabled', t.bool, (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_project').on('webhook_endpoints').columns(['project_id', 'created_at']).execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('created', t.integer, (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('last_attempt_at', 'text')
    .addColumn('response_status', t.integer)
    .addColumn('response_body', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('queued_attempt', t.integer, (c) => c.notNull())
    .addColumn('queued_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('seq', t.integer, (c) => t.autoIncrementKey(c))
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', t.integer, (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('response_status', t.integer)
    .addColumn('response_body', 'text')
    .addColumn('duration_ms', t.integer, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'seq']).execute();
}

/** Columns a code and a grant share: what the consent granted (scopes as a JSON array). */
function withTermsColumns(table: CreateTableBuilder<string, never>): CreateTableBuilder<string, never> {
  return table
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull());
}

/** Issue 18: the OAuth 2.1 authorization server of the MCP endpoint. Codes and tokens are stored as sha256 hashes. */
async function createOAuthTables(db: Db): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text')
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('auth_method', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await withTermsColumns(db.schema.createTable('oauth_codes').addColumn('code_hash', 'text', (c) => c.primaryKey()))
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await withTermsColumns(db.schema.createTable('oauth_grants').addColumn('id', 'text', (c) => c.primaryKey()))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_grants_project').on('oauth_grants').columns(['project_id', 'created_at']).execute();
  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('access', 'refresh')`))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_tokens_expiry').on('oauth_tokens').column('expires_at').execute();
  await db.schema.createIndex('oauth_codes_expiry').on('oauth_codes').column('expires_at').execute();
}

/** Issue 42: invitations, sessions, password reset links and single sign-on. Secrets are stored as sha256 hashes. */
async function createPeopleTables(db: Db): Promise<void> {
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_normalized', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'member')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('invitations_org').on('invitations').columns(['org_id', 'created_at']).execute();
  await db.schema.createIndex('invitations_email').on('invitations').column('email_normalized').execute();
  await db.schema
    .createTable('account_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('account_sessions_account').on('account_sessions').columns(['account_id', 'created_at']).execute();
  await createResetAndSsoTables(db);
}

async function createResetAndSsoTables(db: Db): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('issued_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createTable('sso_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema
    .createTable('sso_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('context', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

/** The migrations of one dialect: every step, run with that dialect's column types. */
function migrationsFor(t: ColumnTypes): Record<string, Migration> {
  return Object.fromEntries(Object.entries(MIGRATION_STEPS).map(([name, step]) => [name, { up: (db: Db) => step(db, t) }]));
}

export const sqliteMigrations = migrationsFor(SQLITE_COLUMN_TYPES);
export const postgresMigrations = migrationsFor(POSTGRES_COLUMN_TYPES);

/**
 * Apply pending migrations; a failure rolls back the failing migration and is thrown. `schema` names where the
 * bookkeeping tables live when the database has several (Kysely would otherwise find another schema's).
 */
export async function migrateToLatest(db: Kysely<unknown>, migrations: Record<string, Migration>, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'metadata_migrations',
    migrationLockTableName: 'metadata_migrations_lock',
    // Features land in parallel branches, each with its own migration; one that sorts before an applied one still runs.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error === undefined) return;
  const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
  throw new DossierError('internal', `Metadata store migration ${failed} failed`, { cause: error });
}
