import type { LimitFunction } from 'p-limit';
import type { SecretBox } from './auth/secrets.ts';
import type { Collection, DocumentRecord, DocumentStatus } from './domain/types.ts';
import { documentStreamEvent, documentWebhookEvents, type ServiceEvent } from './events/catalogue.ts';
import type { ChunkInput, DraftChunkRow } from './ingest/chunk-document.ts';
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
import type { S3EndpointCheck, S3SourceOpener } from './ports/source-reader.ts';
import type { PlanBook } from './usage/plans.ts';
import type { WebhookSender } from './ports/webhook-sender.ts';
import type { WebhookSettings } from './webhooks/delivery.ts';

/** Where core reports what it does; the server and CLI attach their own logger. Secrets never reach it. */
export interface Logger {
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** Converts and sections a document (inline, or in a worker pool with time and memory limits). */
export type ConversionRunner = (input: PrepareInput) => Promise<PreparedDocument>;

/** Tokenizes and windows a converted document into chunks (inline, or in a worker pool with time and memory limits). */
export type ChunkingRunner = (input: ChunkInput) => Promise<DraftChunkRow[]>;

/** A request to draw one page of a PDF: its bytes, the 1-based page, and the widest image wanted in pixels. */
export interface PageRenderInput {
  bytes: Uint8Array;
  page: number;
  maxWidth: number;
}

/** Draws one page of a PDF as PNG (in a worker thread: never on the event loop). */
export type PageRenderer = (input: PageRenderInput) => Promise<{ png: Uint8Array; width: number; height: number }>;

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
  chunk?: ChunkingRunner;
  /** Page images of PDFs (absent: the page image route answers unavailable). */
  renderPage?: PageRenderer;
  log?: Logger;
  /** Chooses the model provider and key of research and post-ready jobs (absent: every call is not_configured). */
  models?: ModelResolver;
  /** Plans of projects and orgs (meters' limits and quotas); absent: everything unlimited. */
  plans?: PlanBook;
  /** Where agent-run slots are counted (absent: in this process). */
  gate?: ConcurrencyGate;
  /** Pipeline workers in this process (0 disables them, for API-only nodes). */
  workers?: { concurrency?: number; leaseMs?: number; pollMs?: number };
  /** Direct uploads stored at once in this process (default DEFAULT_UPLOAD_CONCURRENCY; 0: no cap). */
  uploads?: { concurrency?: number };
  /**
   * Server-side sources (issue 43): folders they may read (none: folder sources refused), the soft-delete grace, how
   * S3 prefixes are opened (absent: S3 sources refused) and which endpoints they may use (absent: any), the lease of a source's run lock, and the largest file a run
   * ingests (default 1 GiB; the server passes its upload limit).
   */
  sources?: { folderRoots?: string[]; graceMs?: number; s3?: S3SourceOpener; checkS3Endpoint?: S3EndpointCheck; lockMs?: number; maxFileBytes?: number };
  /** Outbound webhook calls (absent: every delivery attempt fails as not configured) and their settings. */
  webhooks?: { sender: WebhookSender; settings?: Partial<WebhookSettings>; allowHttpLoopback?: boolean };
}

/** Shared state of one Dossier instance, handed to every service. */
export interface DossierContext extends Required<Omit<DossierDeps, 'reranker' | 'workers' | 'webhooks' | 'uploads' | 'sources'>> {
  /** Always present: an unconfigured resolver when DossierDeps.models is absent. */
  models: ModelResolver;
  reranker: Reranker | null;
  /** Wake the pipeline workers after enqueueing. */
  wakeWorkers: () => void;
  /** Tell the webhook dispatcher that events were recorded (they are queued for delivery soon). */
  eventsRecorded: () => void;
  /**
   * Runs a conversion (the original read into memory, then converted) when a slot for the original's size is free:
   * one of SMALL_CONVERSIONS_AT_ONCE for an original of at most SMALL_ORIGINAL_BYTES, else one of CONVERSIONS_AT_ONCE
   * (an original of unknown size counts as large), so many pipeline jobs at once hold few originals in memory.
   */
  conversionSlot: <T>(sizeBytes: number | null, convert: () => Promise<T>) => Promise<T>;
  /** Stores a direct upload when one of the process's upload slots is free (see DEFAULT_UPLOAD_CONCURRENCY). */
  uploadSlot: LimitFunction;
}

/**
 * The part of the context a function uses: the members named in `K`, and of the metadata only the feature stores in
 * `Store` (issue 35: a function receives only the stores and ports it uses). A DossierContext is one, so callers pass
 * theirs; a test or another composition passes just these.
 */
export type ContextPart<K extends Exclude<keyof DossierContext, 'store'> = never, Store = never> = Pick<DossierContext, K> &
  ([Store] extends [never] ? unknown : { readonly store: Store });

/** Conversions of originals larger than SMALL_ORIGINAL_BYTES in progress at once per process: enough to keep a two-thread conversion pool fed. */
export const CONVERSIONS_AT_ONCE = 4;

/**
 * An original of at most this many bytes is small: more of them are converted at once (SMALL_CONVERSIONS_AT_ONCE),
 * and a conversion pool may send several to a thread in one task (the adapters' ConversionBatcher).
 */
export const SMALL_ORIGINAL_BYTES = 64 * 1024;

/**
 * Conversions of small originals in progress at once per process, besides CONVERSIONS_AT_ONCE: at most 2 MiB of
 * originals, and enough waiting for a conversion thread to take many in one task instead of one a round trip. With
 * four at once, one thread took one document a task and idled half the time waiting for the event loop to hand it the
 * next (issue 41).
 */
export const SMALL_CONVERSIONS_AT_ONCE = 32;

/**
 * Direct uploads stored at once in a process; more wait their turn, in order. Storing one is a few milliseconds of the
 * event loop (the file written, its row inserted, its job queued): eight at once made turns of the loop long enough to
 * delay every other caller, and stored no more a second. Measured on SciFact over HTTP with 8 uploaders on 2 cores
 * (bench/ingest/responsiveness.ts, 2026-11-28): no cap, event-loop delay p99 24-34 ms at 155-171 documents/s; 2 at
 * once, 15 ms at 206-219 documents/s.
 */
export const DEFAULT_UPLOAD_CONCURRENCY = 2;

/**
 * Pipeline jobs run at once in a library's process (the server has its own default, SERVER_PIPELINE_CONCURRENCY).
 * Most of a small document's time is spent waiting (paced index commits, grouped SQLite commits, file syncs, the
 * worker pools), so many run at once; a job holds a document's text only between its conversion (CONVERSIONS_AT_ONCE
 * at a time) and its index commit, so more jobs waiting hold no more memory. Measured on SciFact on 2 cores
 * (bench/compare/profile-build.ts, all 5,183 documents, 2026-11-29, two interleaved runs each, claims in bursts):
 * 64 → 459–486, 128 → 532–591, 256 → 561–653, 512 → 559–564 documents/s, peak RSS the same within noise
 * (2026-11-27, claims one a turn: 32 → 182–193, 64 → 196–216, 96 → 162–167).
 */
export const DEFAULT_PIPELINE_CONCURRENCY = 256;

/** EventBus topic of a collection's document events. */
export const documentTopic = (collectionId: string): string => `documents:${collectionId}`;

/**
 * Persist a status change with its webhook events (one transaction: the outbox), then publish its
 * DocumentEvent on the SSE topic. Both come from the event catalogue.
 */
export async function setDocumentStatus(
  ctx: DossierContext,
  doc: DocumentRecord,
  status: DocumentStatus,
  patch: Partial<DocumentRecord> = {},
  /** The document's collection when the caller has it (saves a read for the webhook events of `ready` and `error`). */
  knownCollection?: Collection,
): Promise<DocumentRecord> {
  const errorMessage = status === 'error' ? (patch.errorMessage ?? 'Processing failed') : null;
  const change = { ...patch, status, errorMessage };
  const emitsWebhooks = status === 'ready' || status === 'error';
  const collection = emitsWebhooks ? (knownCollection ?? (await ctx.store.getCollection(doc.collectionId))) : null;
  const events = collection ? documentWebhookEvents(doc, collection, status, errorMessage) : [];
  const updated = events.length > 0 ? await ctx.store.updateDocumentWithEvents(doc.id, change, events) : await ctx.store.updateDocument(doc.id, change);
  await publishDocumentStatus(ctx, updated);
  if (events.length > 0) ctx.eventsRecorded();
  return updated;
}

/**
 * Publish a document's current status, as saved: after every status change, for a document inserted straight in a
 * status (a direct upload), and again by a job's next attempt, since a worker stopped between saving a status and
 * publishing its event (killed, or the bus unreachable) leaves that event unsent; so a stream sees every status a
 * document settles in at least once (after a crash, possibly twice).
 */
export async function publishDocumentStatus(ctx: DossierContext, doc: DocumentRecord): Promise<void> {
  await ctx.events.publish(documentTopic(doc.collectionId), documentStreamEvent(doc, doc.status));
}

/**
 * Wake webhook delivery after a state change was saved together with its events (the store methods that take
 * `events` write both in one transaction).
 */
export function eventsSaved(ctx: DossierContext, events: readonly ServiceEvent[]): void {
  if (events.length > 0) ctx.eventsRecorded();
}
