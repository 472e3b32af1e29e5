import { DossierError } from '@dossier/core';
import { type Kysely, type Migration, Migrator, sql } from 'kysely';

/**
 * Versioned SQLite migrations of the metadata store. Kysely's Migrator records applied names in
 * `metadata_migrations` and runs only the pending ones, in name order, so migrate() is safe on every start.
 * Never edit a released migration: add the next one. DDL is SQLite's (INTEGER booleans, TEXT JSON).
 */

// The schema builder is untyped by design: migrations describe tables that the typed schema then reads.
type Db = Kysely<unknown>;

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

async function createCollectionsTable(db: Db): Promise<void> {
  await db.schema
    .createTable('collections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('chunk_size', 'integer', (c) => c.notNull())
    .addColumn('chunk_overlap', 'integer', (c) => c.notNull())
    .addColumn('embedding_model', 'text', (c) => c.notNull())
    .addColumn('embedding_dimension', 'integer')
    .addColumn('enable_summarization', 'integer', (c) => c.notNull())
    .addColumn('enable_captioning', 'integer', (c) => c.notNull())
    .addColumn('enable_reranking', 'integer', (c) => c.notNull())
    .addColumn('enable_deduplication', 'integer', (c) => c.notNull())
    .addColumn('suppress_contradictions_by_metadata', 'integer', (c) => c.notNull())
    .addColumn('suppress_intra_document_contradictions', 'integer', (c) => c.notNull())
    .addColumn('llm_model', 'text')
    .addColumn('instructions', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema
    .createIndex('collections_project_env')
    .on('collections')
    .columns(['project_id', 'env', 'created_at'])
    .execute();
}

async function createDocumentsTable(db: Db): Promise<void> {
  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('file_size_bytes', 'integer')
    .addColumn('section_count', 'integer')
    .addColumn('chunk_count', 'integer')
    .addColumn('content_hash', 'text')
    .addColumn('storage_key', 'text')
    .addColumn('markdown_storage_key', 'text')
    .addColumn('error_message', 'text')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('chunk_size', 'integer', (c) => c.notNull())
    .addColumn('chunk_overlap', 'integer', (c) => c.notNull())
    .addColumn('canonical', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  const index = (name: string, columns: string[]) =>
    db.schema.createIndex(name).on('documents').columns(columns).execute();
  await index('documents_collection_created', ['collection_id', 'created_at']);
  await index('documents_collection_status', ['collection_id', 'status']);
  await index('documents_collection_hash', ['collection_id', 'content_hash']);
}

async function createSectionsTable(db: Db): Promise<void> {
  await db.schema
    .createTable('sections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('summary_type', 'text')
    .addColumn('chunk_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('markdown_offset_start', 'integer', (c) => c.notNull())
    .addColumn('markdown_offset_end', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sections_document').on('sections').columns(['document_id', 'position']).execute();
  await db.schema.createIndex('sections_collection').on('sections').column('collection_id').execute();
}

/** Images and table chunks found by conversion (issue 3). */
async function createImageAndTableChunkTables(db: Db): Promise<void> {
  await db.schema
    .createTable('document_images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('section_id', 'text')
    .addColumn('placeholder', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('caption', 'text')
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('byte_size', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('document_images_document').on('document_images').columns(['document_id', 'position']).execute();
  await db.schema
    .createTable('table_chunks')
    .addColumn('chunk_id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('section_id', 'text', (c) => c.notNull())
    .addColumn('section_position', 'integer', (c) => c.notNull())
    .addColumn('chunk_position', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('caption', 'text')
    .execute();
  await db.schema.createIndex('table_chunks_document').on('table_chunks').columns(['document_id', 'section_position', 'chunk_position']).execute();
}

/** Research sessions with their frozen sources, and append-only usage meter entries (research issue). */
async function createResearchAndUsageTables(db: Db): Promise<void> {
  await db.schema
    .createTable('research_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('depth', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('sources', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('research_sessions_collection').on('research_sessions').columns(['collection_id', 'created_at']).execute();
  await db.schema
    .createTable('usage_events')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('meter', 'text', (c) => c.notNull())
    .addColumn('amount', 'real', (c) => c.notNull())
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

async function createClaimTables(db: Db): Promise<void> {
  await db.schema
    .createTable('claims')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('section_id', 'text', (c) => c.notNull())
    .addColumn('section_title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('source_text', 'text')
    .addColumn('importance', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('claims_document').on('claims').columns(['document_id', 'position']).execute();
  await db.schema.createIndex('claims_collection').on('claims').column('collection_id').execute();
  await db.schema
    .createTable('claim_extractions')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('claim_count', 'integer', (c) => c.notNull())
    .addColumn('extracted_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('claim_extractions_collection').on('claim_extractions').column('collection_id').execute();
  await db.schema
    .createTable('claim_maps')
    .addColumn('collection_id', 'text', (c) => c.primaryKey().references('collections.id').onDelete('cascade'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

async function createContradictionTables(db: Db): Promise<void> {
  await db.schema
    .createTable('contradiction_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('claims_processed', 'integer')
    .addColumn('clusters_analyzed', 'integer')
    .addColumn('contradictions_found', 'integer')
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
    .addColumn('claims', 'text', (c) => c.notNull())
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

async function createDuplicateTables(db: Db): Promise<void> {
  await db.schema.alterTable('collections').addColumn('duplicate_threshold', 'real').execute();
  await db.schema
    .createTable('duplicate_documents')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('shingle_count', 'integer', (c) => c.notNull())
    .addColumn('fingerprint_count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('duplicate_documents_collection').on('duplicate_documents').column('collection_id').execute();
  await db.schema
    .createTable('duplicate_fingerprints')
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'integer', (c) => c.notNull())
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
    .addColumn('coverage_to_canonical', 'real')
    .addColumn('coverage_from_canonical', 'real')
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
    .addColumn('jobs_enqueued', 'integer')
    .addColumn('jobs_processed', 'integer')
    .addColumn('duplicates_detected', 'integer')
    .addColumn('duplicate_groups_created', 'integer')
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('duplicate_runs_collection').on('duplicate_runs').columns(['collection_id', 'created_at']).execute();
}

async function createAgentsTable(db: Db): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('system_prompt', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('timeout_ms', 'integer', (c) => c.notNull())
    .addColumn('toolset', 'text', (c) => c.notNull())
    .addColumn('allowed_collection_ids', 'text')
    .addColumn('output_schema', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('agents_project_slug', ['project_id', 'slug'])
    .execute();
}

/** Issue 17: agent runs (with the agent's snapshot) and their steps; both go with the agent. */
async function createAgentRunTables(db: Db): Promise<void> {
  await db.schema
    .createTable('agent_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('sources', 'text', (c) => c.notNull())
    .addColumn('contradiction_flags', 'text', (c) => c.notNull())
    .addColumn('warnings', 'text', (c) => c.notNull())
    .addColumn('structured_output', 'text')
    .addColumn('iterations_used', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('usage', 'text')
    .addColumn('agent_snapshot', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('agent_runs_agent').on('agent_runs').columns(['agent_id', 'created_at']).execute();
  await db.schema.createIndex('agent_runs_status').on('agent_runs').columns(['status', 'created_at']).execute();
  await db.schema
    .createTable('agent_run_steps')
    .addColumn('run_id', 'text', (c) => c.notNull().references('agent_runs.id').onDelete('cascade'))
    .addColumn('step_index', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('tool', 'text')
    .addColumn('collection_id', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_run_steps_pk', ['run_id', 'step_index'])
    .execute();
}

/** Every migration, keyed by a name that sorts in application order. */
export const sqliteMigrations: Record<string, Migration> = {
  '0001_initial': {
    async up(db: Db) {
      await createTenancyTables(db);
      await createProjectsTable(db);
      await createApiKeysTable(db);
      await createCollectionsTable(db);
      await createDocumentsTable(db);
      await createSectionsTable(db);
    },
  },
  '0002_provider_keys': {
    async up(db: Db) {
      await createProviderKeysTable(db);
    },
  },
  '0003_research_usage': {
    async up(db: Db) {
      await createResearchAndUsageTables(db);
    },
  },
  '0004_images_table_chunks': {
    async up(db: Db) {
      await createImageAndTableChunkTables(db);
    },
  },
  '0005_generated_summaries': {
    async up(db: Db) {
      // Post-ready AI summaries replace `summary`; the extractive one waits here for a recompute to restore it.
      await db.schema.alterTable('sections').addColumn('extractive_summary', 'text').execute();
    },
  },
  '0006_collection_query_expansion': {
    async up(db: Db) {
      // Per-collection lexical query expansion (issue 4); null follows the server default.
      await db.schema.alterTable('collections').addColumn('query_expansion', 'text').execute();
    },
  },
  '0012_research_usage_citations': {
    async up(db: Db) {
      // Issue 12: what a research run consumed, and the invented citation markers removed from its answer.
      await db.schema.alterTable('research_sessions').addColumn('usage', 'text').execute();
      await db.schema.alterTable('research_sessions').addColumn('unresolved_citations', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    },
  },
  '0015_claims_contradictions': {
    async up(db: Db) {
      await createClaimTables(db);
      await createContradictionTables(db);
    },
  },
  '0016_near_duplicates': {
    async up(db: Db) {
      await createDuplicateTables(db);
    },
  },
  '0019_agents': {
    async up(db: Db) {
      // Issue 17: hosted agents; slugs are unique per project.
      await createAgentsTable(db);
    },
  },
  '0022_provider_key_sandboxes': {
    async up(db: Db) {
      // Issue 9: provider keys belong to a sandbox; keys added before (by either key) serve the live one.
      await db.schema.alterTable('provider_keys').addColumn('env', 'text', (c) => c.notNull().defaultTo('live')).execute();
    },
  },
  '0023_api_key_management': {
    async up(db: Db) {
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
  },
  '0024_account_token_revocation': {
    async up(db: Db) {
      await db.schema.alterTable('accounts').addColumn('token_epoch', 'text').execute();
    },
  },
  '0025_idempotency_keys': {
    async up(db: Db) {
      // Issue 11: creating requests sent with an Idempotency-Key answer once; a retry gets the first answer.
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('body', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
        .execute();
    },
  },
  '0021_agent_runs': {
    async up(db: Db) {
      await createAgentRunTables(db);
    },
  },
  '0017_webhooks': {
    async up(db: Db) {
      await createWebhookTables(db);
    },
  },
};

/** Issue 16: webhook endpoints, the delivery outbox (one row per event and endpoint) and its attempt log. */
async function createWebhookTables(db: Db): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
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
    .addColumn('created', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_attempt_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('queued_attempt', 'integer', (c) => c.notNull())
    .addColumn('queued_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'seq']).execute();
}

/** Apply pending migrations; a failure rolls back the failing migration and is thrown. */
export async function migrateToLatest(db: Kysely<unknown>, migrations = sqliteMigrations): Promise<void> {
  const migrator = new Migrator({
    db,
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
