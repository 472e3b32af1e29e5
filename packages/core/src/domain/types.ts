/** Domain records shared by every port and service. Field names follow the interface spec. */
import type { z } from 'zod';
import type * as responses from '../responses.ts';
import type { DOCUMENT_STATUSES, ENVS, QUERY_EXPANSIONS, RESEARCH_DEPTH_NAMES, SUMMARY_TYPES, VISIBILITIES } from '../vocabulary.ts';

// The enum lists live in vocabulary.ts (issue 35: one source, imported by core, server, CLI, MCP and dashboard).
export { DOCUMENT_STATUSES, ENVS, QUERY_EXPANSIONS, RESEARCH_DEPTH_NAMES, TERMINAL_STATUSES } from '../vocabulary.ts';

/** A project's two sandboxes: production data, and the isolated test sandbox. */
export type Env = (typeof ENVS)[number];
export type Visibility = (typeof VISIBILITIES)[number];
/** A document's status, in pipeline order (`error` last). */
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
export type Metadata = Record<string, JsonValue>;

export interface Account {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: string;
}

export type Org = z.output<typeof responses.org>;

export type Project = z.output<typeof responses.project>;

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  env: Env;
  /** sha256 hex of the full key, for lookup. */
  keyHash: string;
  /** AES-256-GCM ciphertext of the key (see auth/secrets.ts). */
  keyEncrypted: string;
  /** First characters of the key, safe to show. */
  keyPreview: string;
  /** A label chosen at creation (null for the keys made at bootstrap). */
  name: string | null;
  createdAt: string;
  /** When a request last used it (updated at most once a minute), or null. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** An org-scoped API key (`dsk_org_…`): invokes the org's hosted agents (issue 9). */
export interface OrgApiKeyRecord {
  id: string;
  orgId: string;
  name: string | null;
  /** sha256 hex of the full key, for lookup. */
  keyHash: string;
  keyEncrypted: string;
  keyPreview: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface Collection {
  id: string;
  projectId: string;
  env: Env;
  name: string;
  visibility: Visibility;
  description: string | null;
  chunkSize: number;
  chunkOverlap: number;
  embeddingModel: string;
  /** Vector width of the embedding model; null for lexical-only collections. */
  embeddingDimension: number | null;
  enableSummarization: boolean;
  enableCaptioning: boolean;
  enableReranking: boolean;
  enableDeduplication: boolean;
  suppressContradictionsByMetadata: boolean;
  suppressIntraDocumentContradictions: boolean;
  llmModel: string | null;
  instructions: string | null;
  /**
   * Lexical query expansion of this collection's searches (beyond the spec's fields, issue 4): `rm3`
   * (pseudo-relevance feedback) or `none`; null follows the server's default.
   */
  queryExpansion: QueryExpansion | null;
  /** Coverage (either direction) from which two documents are near-duplicates; null: the default (duplicates/settings.ts). */
  duplicateThreshold: number | null;
  createdAt: string;
  deletedAt: string | null;
}

export interface DocumentRecord {
  id: string;
  collectionId: string;
  filename: string;
  contentType: string | null;
  status: DocumentStatus;
  fileSizeBytes: number | null;
  sectionCount: number | null;
  chunkCount: number | null;
  contentHash: string | null;
  storageKey: string | null;
  markdownStorageKey: string | null;
  /** Bytes stored beside the upload once converted (its Markdown, page offsets and images); null before. */
  derivedBytes: number | null;
  errorMessage: string | null;
  tags: string[];
  metadata: Metadata;
  /** Chunk size and overlap fixed when the document was created (collection updates apply to new documents only). */
  chunkSize: number;
  chunkOverlap: number;
  /** False for a non-canonical member of a duplicate group: excluded from retrieval. */
  canonical: boolean;
  createdAt: string;
  updatedAt: string;
  /**
   * Where the document came from (issue 43): its path within the folder or S3 prefix it mirrors, `/`-separated and
   * relative; unique in the collection. Null (or absent) for a document uploaded without one.
   */
  sourcePath?: string | null;
  /** What the source said of the file when it was last taken (an S3 ETag, or `size:mtime` of a file); skips unchanged ones. */
  sourceStamp?: string | null;
  /** 1 when created; each replacement of its content adds one (absent: 1). */
  version?: number;
  /** When a sync removed it (soft delete): hidden at once, purged after the grace period. */
  deletedAt?: string | null;
  /**
   * A pending presigned upload of new content for a document that came from a source path (issue 43): confirming it
   * replaces that document's content in place, and this placeholder goes.
   */
  replacesDocumentId?: string | null;
}

/** A document whose content was replaced (version 2 and up): its index rows are replaced, never cleared first. */
export const isReplacement = (d: Pick<DocumentRecord, 'version'>): boolean => (d.version ?? 1) > 1;

/**
 * Whether a document's chunks answer searches: a ready one, and one whose replacement content is being processed
 * (version > 1, not in error): its index rows keep the previous content until the new rows replace them by id.
 */
export const answersSearch = (d: Pick<DocumentRecord, 'status' | 'version' | 'deletedAt'>): boolean =>
  !d.deletedAt && (d.status === 'ready' || (isReplacement(d) && d.status !== 'error' && d.status !== 'pending'));

export type SummaryType = (typeof SUMMARY_TYPES)[number];

export interface SectionRecord {
  id: string;
  documentId: string;
  collectionId: string;
  title: string;
  level: number;
  position: number;
  summary: string | null;
  summaryType: SummaryType | null;
  chunkCount: number;
  markdownOffsetStart: number;
  markdownOffsetEnd: number;
}

/** An image found in a document during conversion (spec: DocumentImage). */
export interface DocumentImageRecord {
  id: string;
  documentId: string;
  sectionId: string | null;
  /** Placeholder used during ingestion, `dossier://img-<n>`. */
  placeholder: string;
  mimeType: string;
  caption: string | null;
  position: number;
  byteSize: number;
}

/** A chunk that holds a table, listed with its caption once the caption job has written one. */
export interface TableChunkRecord {
  chunkId: string;
  documentId: string;
  sectionId: string;
  sectionPosition: number;
  chunkPosition: number;
  content: string;
  caption: string | null;
}

/** A chunk as stored in the chunk index. */
export interface ChunkRecord {
  id: string;
  collectionId: string;
  documentId: string;
  sectionId: string;
  /** Zero-based index of the chunk within its section. */
  position: number;
  content: string;
  tokenCount: number;
}

/** Filters accepted by query, scan and filename search. */
export interface RetrievalFilter {
  /** Document must carry ALL of these tags. */
  tags?: string[];
  /** Document must carry at least ONE of these tags. */
  anyTags?: string[];
  /** Document metadata must contain all of these top-level pairs (deep equality of values). */
  metadata?: Metadata;
  /** Only these documents (a hosted-agent run scoped to one document). */
  documentIds?: string[];
}

export interface DocumentEvent {
  documentId: string;
  collectionId: string;
  status: DocumentStatus;
  sectionCount?: number;
  /** The sandbox of the document's collection (`live` or `test`). */
  env: Env;
  /** The document's version when its content was replaced (2 and up; absent for a first version). */
  version?: number;
}

// --- Research sessions and usage meters (spec: ResearchSource, ResearchSession, Usage meters) ---

/** Research depths, shallowest first (spec: research `depth`). */
export type ResearchDepth = (typeof RESEARCH_DEPTH_NAMES)[number];

/** Lexical query expansion strategies (collection setting `queryExpansion`). */
export type QueryExpansion = (typeof QUERY_EXPANSIONS)[number];

/** A box on a page as fractions of its width and height: [x0, y0, x1, y1], origin top-left. */
export type PageBox = NonNullable<PassageLocation['regions']>[number]['box'];

/**
 * Where a cited passage is, as results show it: its characters in the document's Markdown (`span`, UTF-16 offsets,
 * for every format) and, for a paged original (PDF, scan), its pages and boxes on them. Absent when unknown.
 */
export type PassageLocation = z.output<typeof responses.passageLocation>;

/** A range of a spreadsheet's cells: its sheet's name and `A1:D20` (first cell to last). */
export type CellRange = NonNullable<PassageLocation['cells']>[number];

/** A chunk an answer cites, copied when the session ran (spec: ResearchSource); where it is in its document beyond the spec (issue 39). */
export type ResearchSource = z.output<typeof responses.researchSource>;

/** A saved research run; `sources` is a frozen snapshot that later document changes never alter. */
export type ResearchSessionRecord = Omit<z.output<typeof responses.researchSession>, 'faithfulness'> & { collectionId: string };

/** What an agent run consumed: provider-reported tokens (cache reads and writes are included in inputTokens), model calls and retries. */
export type RunUsage = z.output<typeof responses.runUsage>;

/** Metered quantities of a project sandbox: POST query calls, and research credits (fractional). */
export type UsageMeter = 'queries' | 'credits';

/** A provider a project can store its own key for (`anthropic` is the spec's provider_a, `openai` provider_b). */
export type KeyedProvider = 'anthropic' | 'openai';

/** A project's own model provider key, used before the operator's managed key (spec: ProviderKey). */
export interface ProviderKeyRecord {
  id: string;
  projectId: string;
  /** The sandbox whose runs use it: a test key manages and uses only test-sandbox provider keys (issue 9). */
  env: Env;
  provider: KeyedProvider;
  /** Display label. */
  name: string;
  /** AES-256-GCM ciphertext of the key (see auth/secrets.ts); the plaintext is never stored. */
  keyEncrypted: string;
  /** `abcd…wxyz`, the only form of the key ever shown again. */
  keyPreview: string;
  createdAt: string;
}
