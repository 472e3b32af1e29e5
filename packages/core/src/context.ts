import type { SecretBox } from './auth/secrets.ts';
import type { DocumentEvent, DocumentRecord, DocumentStatus } from './domain/types.ts';
import type { PreparedDocument, PrepareInput } from './ingest/prepare.ts';
import type { ModelResolver } from './models/types.ts';
import type { BlobStore } from './ports/blob-store.ts';
import type { ConcurrencyGate } from './ports/concurrency-gate.ts';
import type { ChunkIndex } from './ports/chunk-index.ts';
import type { EmbedderProvider } from './ports/embedder.ts';
import type { EventBus } from './ports/event-bus.ts';
import type { JobQueue } from './ports/job-queue.ts';
import type { MetadataStore } from './ports/metadata-store.ts';
import type { Reranker } from './ports/reranker.ts';
import type { PlanBook } from './usage/plans.ts';

/** Where core reports what it does; the server and CLI attach their own logger. Secrets never reach it. */
export interface Logger {
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** Converts and sections a document (inline, or in a worker pool with time and memory limits). */
export type ConversionRunner = (input: PrepareInput) => Promise<PreparedDocument>;

/** The adapters and settings core runs on. */
export interface DossierDeps {
  store: MetadataStore;
  index: ChunkIndex;
  blobs: BlobStore;
  queue: JobQueue;
  events: EventBus;
  embedders: EmbedderProvider;
  secrets: SecretBox;
  /** Embedding model for new collections, resolved at start (`none` when no model is available). */
  defaultEmbeddingModel: string;
  reranker?: Reranker | null;
  convert?: ConversionRunner;
  log?: Logger;
  /** Chooses the model provider and key of research and post-ready jobs (absent: every call is not_configured). */
  models?: ModelResolver;
  /** Plans of projects and orgs (meters' limits and quotas); absent: everything unlimited. */
  plans?: PlanBook;
  /** Where agent-run slots are counted (absent: in this process). */
  gate?: ConcurrencyGate;
  /** Pipeline workers in this process (0 disables them, for API-only nodes). */
  workers?: { concurrency?: number; leaseMs?: number; pollMs?: number };
}

/** Shared state of one Dossier instance, handed to every service. */
export interface DossierContext extends Required<Omit<DossierDeps, 'reranker' | 'workers'>> {
  /** Always present: an unconfigured resolver when DossierDeps.models is absent. */
  models: ModelResolver;
  reranker: Reranker | null;
  /** Wake the pipeline workers after enqueueing. */
  wakeWorkers: () => void;
}

/** EventBus topic of a collection's document events. */
export const documentTopic = (collectionId: string): string => `documents:${collectionId}`;

/** Persist a status change and publish its DocumentEvent. */
export async function setDocumentStatus(
  ctx: DossierContext,
  doc: DocumentRecord,
  status: DocumentStatus,
  patch: Partial<DocumentRecord> = {},
): Promise<DocumentRecord> {
  const errorMessage = status === 'error' ? (patch.errorMessage ?? 'Processing failed') : null;
  const updated = await ctx.store.updateDocument(doc.id, { ...patch, status, errorMessage });
  const event: DocumentEvent = { documentId: doc.id, collectionId: doc.collectionId, status };
  if (status === 'sectioned') event.sectionCount = updated.sectionCount ?? 0;
  await ctx.events.publish(documentTopic(doc.collectionId), event);
  return updated;
}
