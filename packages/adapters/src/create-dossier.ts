import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type BlobStore,
  type ChunkIndex,
  type EventBus,
  type JobQueue,
  composeMetadataStore,
  createDossierCore,
  createSecretBox,
  type ConcurrencyGate,
  type Dossier,
  type DossierDeps,
  DossierError,
  type Embedder,
  type EmbedderProvider,
  InProcessEventBus,
  type Logger,
  type MetadataStore,
  type MetadataStoreParts,
  type ModelProviderFactory,
  type ModelResolver,
  type OAuthSettings,
  type PeopleSettings,
  type PlanBook,
  type Reranker,
  type ResearchSettings,
  type RetrievalSettings,
  silentLogger,
  type WebhookSender,
  type WebhookSettings,
} from '@dossier/core';
import { createEmbedderProvider } from './embedders/provider.ts';
import { createFsBlobStore } from './fs/blob-store.ts';
import { openSmallObjects } from './fs/small-objects.ts';
import { createLanceChunkIndex } from './lancedb/chunk-index.ts';
import { loadSdk } from './lancedb/sdk.ts';
import { type ChunkingPoolOptions, createChunkingPool } from './pool/chunk-pool.ts';
import { type ConversionPoolOptions, createConversionPool } from './pool/convert-pool.ts';
import { createPostgresJobQueue } from './postgres/job-queue.ts';
import { createPostgresMetadataStore } from './postgres/metadata-store.ts';
import { createModelProviderFactory } from './providers/factory.ts';
import { buildModelResolver, type ProviderOptions } from './providers/model-resolver.ts';
import { buildReranker, parseRerankerSpec } from './rerankers/spec.ts';
import { createSqliteJobQueue } from './sqlite/job-queue.ts';
import { createSqliteMetadataStore } from './sqlite/metadata-store.ts';
import { refusedEndpointReason } from './s3/endpoint-guard.ts';
import { createS3SourceOpener } from './s3/source-reader.ts';
import { createHttpWebhookSender } from './webhooks/http-sender.ts';

/** Options of an embedded Dossier: everything lives under dataDir. */
export interface DossierOptions {
  dataDir: string;
  /** 64 hex characters; default: `<dataDir>/master.key`, created with mode 0600 on first start. */
  masterKey?: string;
  /** Embedding model of new collections (default `Xenova/bge-small-en-v1.5`; `none` for BM25 only). */
  embeddingModel?: string;
  modelsDir?: string;
  allowModelDownload?: boolean;
  ollamaUrl?: string;
  /** Extra embedders served under their own model ids (e.g. a test embedder). */
  embedders?: Embedder[];
  reranker?: Reranker;
  /** Reranker to build when `reranker` is not given: `none`, `cross-encoder[:<model>]` or `llm[:<model>]` (see rerankers/spec.ts). */
  rerankerSpec?: string;
  retrieval?: RetrievalSettings;
  workers?: DossierDeps['workers'];
  /** Direct uploads stored at once (default: core's DEFAULT_UPLOAD_CONCURRENCY; 0: no cap). */
  uploads?: DossierDeps['uploads'];
  /**
   * Issue 43: folders server-side sources may read, how long their deletions stay soft, the largest file a run
   * ingests, and whether S3 sources may use private endpoints (default false: public addresses only, SSRF guard).
   */
  sources?: DossierDeps['sources'] & { allowPrivateEndpoints?: boolean };
  /** Limits of the document conversion worker pool. */
  conversion?: ConversionPoolOptions;
  /** Limits of the chunking (tokenization) worker pool. */
  chunking?: ChunkingPoolOptions;
  /** Managed model providers and default models of research and post-ready jobs (none: projects bring keys). */
  providers?: ProviderOptions;
  /** Model provider clients (default: the official SDKs); tests inject fakes or point baseUrls elsewhere. */
  modelProviders?: ModelProviderFactory;
  /** A ready model resolver, replacing the one built from `providers` (tests inject a scripted model). */
  models?: ModelResolver;
  /** Research tunables (wall-clock limit of a run, output tokens per call). */
  research?: Partial<ResearchSettings>;
  /** Lifetimes of the MCP endpoint's OAuth codes and tokens, and the clock they are measured by. */
  oauth?: Partial<OAuthSettings>;
  /** Lifetimes of invitation and reset links (issue 42). */
  people?: Partial<PeopleSettings>;
  /**
   * The composition seam (issue 10): bring any adapter of your own; each one left out is the embedded default.
   * Where files are stored (default: the filesystem under `<dataDir>/blobs`; `s3BlobStoreFromUrl` shares them).
   */
  blobs?: BlobStore;
  /**
   * Postgres (`postgres://user:password@host:5432/database`) for the metadata and the pipeline jobs, so several
   * nodes share them; `store` and `queue` given here win. Default: SQLite files under dataDir.
   */
  databaseUrl?: string;
  /** Metadata (default: SQLite in `<dataDir>/dossier.db`, or Postgres at `databaseUrl`); it is migrated at start. */
  store?: MetadataStore;
  /**
   * Feature stores of your own serving their part of the metadata (e.g. `{ idempotency }`), the rest staying in `store`
   * (see composeMetadataStore for which parts stand alone). They are yours to set up and close.
   */
  stores?: Partial<MetadataStoreParts>;
  /** Pipeline jobs (default: SQLite in `<dataDir>/jobs.db`, or Postgres at `databaseUrl`). */
  queue?: JobQueue;
  /** Chunks, vectors and full text (default: LanceDB in `<dataDir>/lancedb`). */
  index?: ChunkIndex;
  /** Document status events (default: in this process). */
  events?: EventBus;
  /** Plans of projects and orgs (default: every project unlimited). */
  plans?: PlanBook;
  /** Where agent-run slots are counted (default: in this process; `redisConcurrencyGate` shares them between nodes). */
  gate?: ConcurrencyGate;
  /** Outbound webhooks: the SSRF-safe HTTP sender's options, delivery settings, or a sender of your own. */
  webhooks?: { allowHttpLoopback?: boolean; settings?: Partial<WebhookSettings>; sender?: WebhookSender };
  log?: Logger;
}

/** An embedded Dossier: the public API (`Dossier` of `@dossier/core`) plus where its data lives. */
export interface EmbeddedDossier extends Dossier {
  /** The absolute data directory (SQLite, LanceDB, files, the master key). */
  readonly dataDir: string;
}

export const DEFAULT_EMBEDDING_MODEL = 'Xenova/bge-small-en-v1.5';

/** The master key from options or the key file, creating the file (0600) on first start. */
export function loadMasterKey(dataDir: string, hex?: string): Uint8Array {
  if (hex) {
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new DossierError('invalid_input', 'The master key must be 64 hexadecimal characters');
    return Buffer.from(hex, 'hex');
  }
  const file = join(dataDir, 'master.key');
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

/** A provider that serves the given embedders first, then the real ones. */
function withExtraEmbedders(base: EmbedderProvider, extra: Embedder[]): EmbedderProvider {
  const byModel = new Map(extra.map((e) => [e.model, e]));
  return {
    get: async (model) => byModel.get(model) ?? base.get(model),
    close: async () => {
      await Promise.allSettled([base.close(), ...extra.map((e) => e.close())]);
    },
  };
}

/** The configured model when it can be loaded here, otherwise `none` (lexical-only collections). */
async function resolveDefaultModel(embedders: EmbedderProvider, model: string, log: Logger): Promise<string> {
  if (model === 'none') return 'none';
  const embedder = await embedders.get(model);
  if (embedder) {
    log.info('embedding model ready', { model, dimension: embedder.dimension });
    return model;
  }
  log.warn('embedding model unavailable; new collections use BM25-only search', { model, defaultEmbeddingModel: 'none' });
  return 'none';
}

/** A Postgres connection URL, checked before anything connects (the URL is never echoed: it may hold a password). */
export function checkDatabaseUrl(url: string): string {
  if (!/^postgres(ql)?:\/\/[^/\s]/i.test(url))
    throw new DossierError('invalid_input', 'The database URL must look like postgres://user:password@host:5432/database');
  return url;
}

/** Name the database that failed by host and database only: the URL may hold a password. */
function unreachableDatabase(url: string, err: unknown): DossierError {
  const { host, pathname } = new URL(url);
  const reason = (err as { code?: string }).code ?? (err as Error).message;
  return new DossierError('unavailable', `Cannot use the database ${pathname.slice(1)} at ${host} (DOSSIER_DATABASE_URL): ${reason}`, { cause: err });
}

/** The metadata store (migrated) and the job queue: the caller's, else Postgres at databaseUrl, else SQLite files. */
async function metadataAndJobs(opts: DossierOptions, dataDir: string): Promise<{ store: MetadataStore; queue: JobQueue }> {
  const databaseUrl = opts.databaseUrl === undefined ? undefined : checkDatabaseUrl(opts.databaseUrl);
  const store =
    opts.store ??
    (databaseUrl ? createPostgresMetadataStore({ connectionString: databaseUrl }) : createSqliteMetadataStore({ filename: join(dataDir, 'dossier.db') }));
  try {
    await store.migrate();
    const queue =
      opts.queue ??
      (databaseUrl ? await createPostgresJobQueue({ connectionString: databaseUrl }) : createSqliteJobQueue({ filename: join(dataDir, 'jobs.db') }));
    return { store: opts.stores ? composeMetadataStore(store, opts.stores) : store, queue };
  } catch (err) {
    // A database that cannot be reached or migrated: release the store's connections so the process can exit.
    if (!opts.store) await store.close().catch(() => {});
    throw databaseUrl ? unreachableDatabase(databaseUrl, err) : err;
  }
}

/** Source settings with S3 prefixes opened by the AWS SDK, their endpoints guarded (see s3/endpoint-guard.ts). */
function s3Sources(opts: DossierOptions['sources'] = {}): DossierDeps['sources'] {
  const { allowPrivateEndpoints = false, ...rest } = opts;
  return { s3: createS3SourceOpener({ allowPrivateEndpoints }), checkS3Endpoint: (url) => refusedEndpointReason(url, allowPrivateEndpoints), ...rest };
}

/** Assemble Dossier from core and the embedded adapters (SQLite, LanceDB, the filesystem) and start its workers. */
export async function createDossier(opts: DossierOptions): Promise<EmbeddedDossier> {
  const dataDir = resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // The data directory holds keys, credentials and every tenant's files: the service account's alone (issue 9).
  chmodSync(dataDir, 0o700);
  const log = opts.log ?? silentLogger;
  const modelProviders = opts.modelProviders ?? createModelProviderFactory({ log });
  const { store, queue } = await metadataAndJobs(opts, dataDir);
  const base = createEmbedderProvider({
    modelsDir: opts.modelsDir,
    cacheDir: join(dataDir, 'models'),
    allowDownload: opts.allowModelDownload ?? true,
    ollamaBaseUrl: opts.ollamaUrl,
    log: (msg) => log.info(msg),
  });
  const embedders = withExtraEmbedders(base, opts.embedders ?? []);
  // LanceDB and Arrow take a second of module loading: done at start, not inside the first upload's request.
  if (!opts.index) await loadSdk();
  const conversion = await createConversionPool(opts.conversion);
  const chunking = await createChunkingPool(opts.chunking);
  const secrets = createSecretBox(loadMasterKey(dataDir, opts.masterKey));
  const reranker =
    opts.reranker ??
    (opts.rerankerSpec
      ? await buildReranker(parseRerankerSpec(opts.rerankerSpec), {
          models: { modelsDir: opts.modelsDir, cacheDir: join(dataDir, 'models'), allowDownload: opts.allowModelDownload ?? true },
          providers: opts.providers ?? {},
          factory: modelProviders,
          log,
        })
      : null);
  // Small originals as rows of one SQLite file rather than files of their own (see small-objects.ts); opened on first use.
  const smallObjects = opts.blobs ? null : openSmallObjects(join(dataDir, 'blobs.db'));
  const models = opts.models ?? buildModelResolver(opts.providers ?? {}, { store, secrets, log, ollamaUrl: opts.ollamaUrl, factory: modelProviders });
  const core = createDossierCore(
    {
      store,
      queue,
      embedders,
      // A shared database means other processes (nodes) may write this index too (see sharedWithOtherProcesses).
      index: opts.index ?? createLanceChunkIndex({ dir: join(dataDir, 'lancedb'), sharedWithOtherProcesses: opts.databaseUrl !== undefined }),
      blobs: opts.blobs ?? createFsBlobStore({ root: join(dataDir, 'blobs'), small: smallObjects ?? undefined }),
      events: opts.events ?? new InProcessEventBus(),
      secrets,
      models,
      defaultEmbeddingModel: await resolveDefaultModel(embedders, opts.embeddingModel ?? DEFAULT_EMBEDDING_MODEL, log),
      reranker,
      convert: conversion.run,
      chunk: chunking.run,
      renderPage: conversion.renderPage,
      workers: opts.workers,
      uploads: opts.uploads,
      // S3 prefixes are opened with the AWS SDK (an optional package: without it, an S3 source's run fails saying so).
      sources: s3Sources(opts.sources),
      plans: opts.plans,
      gate: opts.gate,
      webhooks: {
        sender: opts.webhooks?.sender ?? createHttpWebhookSender({ allowHttpLoopback: opts.webhooks?.allowHttpLoopback }),
        settings: opts.webhooks?.settings,
        allowHttpLoopback: opts.webhooks?.allowHttpLoopback,
      },
      log,
    },
    { retrieval: opts.retrieval, research: opts.research, oauth: opts.oauth, people: opts.people },
  );
  core.start();
  const closeCore = core.close;
  return Object.assign(core, {
    dataDir,
    /** Drain the workers and release every adapter, then the conversion pool. */
    close: async () => {
      await closeCore();
      await Promise.all([conversion.close(), chunking.close(), smallObjects?.close()]);
      // Only a reranker built here is ours to close (a cross-encoder's worker pool).
      if (!opts.reranker) await (reranker as { close?: () => Promise<void> } | null)?.close?.();
    },
  });
}

export type { Dossier } from '@dossier/core';
