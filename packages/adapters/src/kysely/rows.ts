import type {
  Account,
  ApiKeyRecord,
  Collection,
  CollectionPatch,
  DocumentPatch,
  DocumentRecord,
  DocumentStatus,
  Env,
  JsonValue,
  Metadata,
  Org,
  Project,
  SectionRecord,
  SummaryType,
  Visibility,
} from '@dossier/core';
import type { Selectable } from 'kysely';
import type { MetadataDialect } from './dialect.ts';
import type { ApiKeysTable, CollectionsTable, DbJson, DocumentsTable, MetadataDatabase, SectionsTable } from './schema.ts';

/** Record field → column, for every field; inserts and patches are both encoded through it. */
type ColumnMap<R, T> = { readonly [K in keyof R]-?: keyof T & string };

const API_KEY_COLUMNS = {
  id: 'id',
  projectId: 'project_id',
  env: 'env',
  keyHash: 'key_hash',
  keyEncrypted: 'key_encrypted',
  keyPreview: 'key_preview',
  name: 'name',
  createdAt: 'created_at',
  lastUsedAt: 'last_used_at',
  revokedAt: 'revoked_at',
} as const satisfies ColumnMap<ApiKeyRecord, ApiKeysTable>;

const COLLECTION_COLUMNS = {
  id: 'id',
  projectId: 'project_id',
  env: 'env',
  name: 'name',
  visibility: 'visibility',
  description: 'description',
  chunkSize: 'chunk_size',
  chunkOverlap: 'chunk_overlap',
  embeddingModel: 'embedding_model',
  embeddingDimension: 'embedding_dimension',
  enableSummarization: 'enable_summarization',
  enableCaptioning: 'enable_captioning',
  enableReranking: 'enable_reranking',
  enableDeduplication: 'enable_deduplication',
  suppressContradictionsByMetadata: 'suppress_contradictions_by_metadata',
  suppressIntraDocumentContradictions: 'suppress_intra_document_contradictions',
  llmModel: 'llm_model',
  instructions: 'instructions',
  queryExpansion: 'query_expansion',
  duplicateThreshold: 'duplicate_threshold',
  createdAt: 'created_at',
  deletedAt: 'deleted_at',
} as const satisfies ColumnMap<Collection, CollectionsTable>;

const DOCUMENT_COLUMNS = {
  id: 'id',
  collectionId: 'collection_id',
  filename: 'filename',
  contentType: 'content_type',
  status: 'status',
  fileSizeBytes: 'file_size_bytes',
  sectionCount: 'section_count',
  chunkCount: 'chunk_count',
  contentHash: 'content_hash',
  storageKey: 'storage_key',
  markdownStorageKey: 'markdown_storage_key',
  derivedBytes: 'derived_bytes',
  errorMessage: 'error_message',
  tags: 'tags',
  metadata: 'metadata',
  chunkSize: 'chunk_size',
  chunkOverlap: 'chunk_overlap',
  canonical: 'canonical',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  sourcePath: 'source_path',
  sourceStamp: 'source_stamp',
  version: 'version',
  deletedAt: 'deleted_at',
  replacesDocumentId: 'replaces_document_id',
} as const satisfies ColumnMap<DocumentRecord, DocumentsTable>;

const SECTION_COLUMNS = {
  id: 'id',
  documentId: 'document_id',
  collectionId: 'collection_id',
  title: 'title',
  level: 'level',
  position: 'position',
  summary: 'summary',
  summaryType: 'summary_type',
  chunkCount: 'chunk_count',
  markdownOffsetStart: 'markdown_offset_start',
  markdownOffsetEnd: 'markdown_offset_end',
} as const satisfies ColumnMap<SectionRecord, SectionsTable>;

/**
 * Encode the defined fields of a record or patch as a row. Booleans and JSON (arrays, objects) are the
 * only values whose storage differs by dialect; undefined fields are left out, so a patch keeps them.
 */
function toRow<R extends object, T>(record: Partial<R>, columns: ColumnMap<R, T>, dialect: MetadataDialect): Partial<T> {
  const row: Record<string, unknown> = {};
  for (const field in record) {
    const value: unknown = record[field];
    const column = columns[field];
    if (value === undefined || column === undefined) continue;
    if (typeof value === 'boolean') row[column] = dialect.bool(value);
    else if (value !== null && typeof value === 'object') row[column] = dialect.json(value as JsonValue);
    else row[column] = value;
  }
  // The column map ties each field to its column; value types match by construction of the records.
  return row as Partial<T>;
}

/** Encode a whole record for insertion: every column is present. */
function insertRow<R extends object, T>(record: R, columns: ColumnMap<R, T>, dialect: MetadataDialect): T {
  return toRow(record, columns, dialect) as T;
}

type Dialect = MetadataDialect;

export const apiKeyToRow = (k: ApiKeyRecord, d: Dialect) => insertRow<ApiKeyRecord, ApiKeysTable>(k, API_KEY_COLUMNS, d);
export const collectionToRow = (c: Collection, d: Dialect) => insertRow<Collection, CollectionsTable>(c, COLLECTION_COLUMNS, d);
export const collectionPatchToRow = (p: CollectionPatch, d: Dialect) => toRow<CollectionPatch, CollectionsTable>(p, COLLECTION_COLUMNS, d);
export const documentToRow = (doc: DocumentRecord, d: Dialect) => insertRow<DocumentRecord, DocumentsTable>(doc, DOCUMENT_COLUMNS, d);
export const documentPatchToRow = (p: DocumentPatch, d: Dialect) => toRow<DocumentPatch, DocumentsTable>(p, DOCUMENT_COLUMNS, d);
export const sectionToRow = (s: SectionRecord, d: Dialect) => insertRow<SectionRecord, SectionsTable>(s, SECTION_COLUMNS, d);

/** Parse a JSON column whether the driver returned text (SQLite) or a parsed value (Postgres jsonb). */
export function fromJson<T>(value: DbJson): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

type Row<K extends keyof MetadataDatabase> = Selectable<MetadataDatabase[K]>;

export const accountFromRow = (r: Row<'accounts'>): Account => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  createdAt: r.created_at,
});

export const orgFromRow = (r: Row<'orgs'>): Org => ({ id: r.id, name: r.name, createdAt: r.created_at });

export const projectFromRow = (r: Row<'projects'>): Project => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  createdAt: r.created_at,
});

export const apiKeyFromRow = (r: Row<'api_keys'>): ApiKeyRecord => ({
  id: r.id,
  projectId: r.project_id,
  env: r.env as Env,
  keyHash: r.key_hash,
  keyEncrypted: r.key_encrypted,
  keyPreview: r.key_preview,
  name: r.name,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export const collectionFromRow = (r: Row<'collections'>): Collection => ({
  id: r.id,
  projectId: r.project_id,
  env: r.env as Env,
  name: r.name,
  visibility: r.visibility as Visibility,
  description: r.description,
  chunkSize: r.chunk_size,
  chunkOverlap: r.chunk_overlap,
  embeddingModel: r.embedding_model,
  embeddingDimension: r.embedding_dimension,
  enableSummarization: Boolean(r.enable_summarization),
  enableCaptioning: Boolean(r.enable_captioning),
  enableReranking: Boolean(r.enable_reranking),
  enableDeduplication: Boolean(r.enable_deduplication),
  suppressContradictionsByMetadata: Boolean(r.suppress_contradictions_by_metadata),
  suppressIntraDocumentContradictions: Boolean(r.suppress_intra_document_contradictions),
  llmModel: r.llm_model,
  instructions: r.instructions,
  queryExpansion: (r.query_expansion ?? null) as Collection['queryExpansion'],
  duplicateThreshold: r.duplicate_threshold === null ? null : Number(r.duplicate_threshold),
  createdAt: r.created_at,
  deletedAt: r.deleted_at,
});

export const documentFromRow = (r: Row<'documents'>): DocumentRecord => ({
  id: r.id,
  collectionId: r.collection_id,
  filename: r.filename,
  contentType: r.content_type,
  status: r.status as DocumentStatus,
  fileSizeBytes: r.file_size_bytes,
  sectionCount: r.section_count,
  chunkCount: r.chunk_count,
  contentHash: r.content_hash,
  storageKey: r.storage_key,
  markdownStorageKey: r.markdown_storage_key,
  derivedBytes: r.derived_bytes === null ? null : Number(r.derived_bytes),
  errorMessage: r.error_message,
  tags: fromJson<string[]>(r.tags),
  metadata: fromJson<Metadata>(r.metadata),
  chunkSize: r.chunk_size,
  chunkOverlap: r.chunk_overlap,
  canonical: Boolean(r.canonical),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  sourcePath: r.source_path,
  sourceStamp: r.source_stamp,
  version: Number(r.version),
  deletedAt: r.deleted_at,
  // Only on the placeholder of a presigned replacement (issue 43), so other documents read back as they were written.
  ...(r.replaces_document_id ? { replacesDocumentId: r.replaces_document_id } : {}),
});

export const sectionFromRow = (r: Row<'sections'>): SectionRecord => ({
  id: r.id,
  documentId: r.document_id,
  collectionId: r.collection_id,
  title: r.title,
  level: r.level,
  position: r.position,
  summary: r.summary,
  summaryType: r.summary_type as SummaryType | null,
  chunkCount: r.chunk_count,
  markdownOffsetStart: r.markdown_offset_start,
  markdownOffsetEnd: r.markdown_offset_end,
});
