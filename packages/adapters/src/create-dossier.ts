import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type Access,
  type BlobStore,
  type ChunkIndex,
  type EventBus,
  type JobQueue,
  createDossierCore,
  createSecretBox,
  type ConcurrencyGate,
  type DossierCore,
  type DossierDeps,
  DossierError,
  type Embedder,
  type EmbedderProvider,
  InProcessEventBus,
  type Logger,
  type MetadataStore,
  type ModelProviderFactory,
  type ModelResolver,
  type PlanBook,
  type Reranker,
  type ResearchSettings,
  type RetrievalSettings,
  scopedDossier,
  type ScopedDossier,
  silentLogger,
  type WebhookSender,
  type WebhookSettings,
} from '@dossier/core';
import { createEmbedderProvider } from './embedders/provider.ts';
import { createFsBlobStore } from './fs/blob-store.ts';
import { createLanceChunkIndex } from './lancedb/chunk-index.ts';
import { type ConversionPoolOptions, createConversionPool } from './pool/convert-pool.ts';
import { createModelProviderFactory } from './providers/factory.ts';
import { buildModelResolver, type ProviderOptions } from './providers/model-resolver.ts';
import { buildReranker, parseRerankerSpec } from './rerankers/spec.ts';
import { createSqliteJobQueue } from './sqlite/job-queue.ts';
import { createSqliteMetadataStore } from './sqlite/metadata-store.ts';
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
  /** Limits of the document conversion worker pool. */
  conversion?: ConversionPoolOptions;
  /** Managed model providers and default models of research and post-ready jobs (none: projects bring keys). */
  providers?: ProviderOptions;
  /** Model provider clients (default: the official SDKs); tests inject fakes or point baseUrls elsewhere. */
  modelProviders?: ModelProviderFactory;
  /** A ready model resolver, replacing the one built from `providers` (tests inject a scripted model). */
  models?: ModelResolver;
  /** Research tunables (wall-clock limit of a run, output tokens per call). */
  research?: Partial<ResearchSettings>;
  /**
   * The composition seam (issue 10): bring any adapter of your own; each one left out is the embedded default.
   * Where files are stored (default: the filesystem under `<dataDir>/blobs`; `s3BlobStoreFromUrl` shares them).
   */
  blobs?: BlobStore;
  /** Metadata (default: SQLite in `<dataDir>/dossier.db`); it is migrated at start. */
  store?: MetadataStore;
  /** Pipeline jobs (default: SQLite in `<dataDir>/jobs.db`). */
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

/** An embedded Dossier: the core services plus the data directory and a local project for library use. */
export type Dossier = DossierCore & {
  dataDir: string;
  /** The data-plane services of a built-in local project, for apps that embed the library without keys. */
  local(): Promise<ScopedDossier>;
};

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

async function localAccess(core: DossierCore, store: MetadataStore): Promise<NonNullable<Access>> {
  const email = 'library@localhost';
  const boot = await core.auth.bootstrap(email, randomBytes(24).toString('base64url'));
  if (boot) return { projectId: boot.projectId, env: 'live' };
  const account = await store.findAccountByEmail(email);
  const [org] = account ? await store.listOrgsForAccount(account.id) : [];
  const [project] = org ? await store.listProjects(org.id) : [];
  if (!project) throw new DossierError('internal', 'The local project is missing');
  return { projectId: project.id, env: 'live' };
}

/** Assemble Dossier from core and the embedded adapters (SQLite, LanceDB, the filesystem) and start its workers. */
export async function createDossier(opts: DossierOptions): Promise<Dossier> {
  const dataDir = resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // The data directory holds keys, credentials and every tenant's files: the service account's alone (issue 9).
  chmodSync(dataDir, 0o700);
  const log = opts.log ?? silentLogger;
  const modelProviders = opts.modelProviders ?? createModelProviderFactory({ log });
  const store = opts.store ?? createSqliteMetadataStore({ filename: join(dataDir, 'dossier.db') });
  await store.migrate();
  const queue = opts.queue ?? createSqliteJobQueue({ filename: join(dataDir, 'jobs.db') });
  const base = createEmbedderProvider({
    modelsDir: opts.modelsDir,
    cacheDir: join(dataDir, 'models'),
    allowDownload: opts.allowModelDownload ?? true,
    ollamaBaseUrl: opts.ollamaUrl,
    log: (msg) => log.info(msg),
  });
  const embedders = withExtraEmbedders(base, opts.embedders ?? []);
  const conversion = await createConversionPool(opts.conversion);
  const secrets = createSecretBox(loadMasterKey(dataDir, opts.masterKey));
  const reranker = opts.reranker ?? (opts.rerankerSpec ? await buildReranker(parseRerankerSpec(opts.rerankerSpec), {
    models: { modelsDir: opts.modelsDir, cacheDir: join(dataDir, 'models'), allowDownload: opts.allowModelDownload ?? true },
    providers: opts.providers ?? {}, factory: modelProviders, log,
  }) : null);
  const models = opts.models ?? buildModelResolver(opts.providers ?? {}, { store, secrets, log, ollamaUrl: opts.ollamaUrl, factory: modelProviders });
  const core = createDossierCore(
    {
      store, queue, embedders,
      index: opts.index ?? createLanceChunkIndex({ dir: join(dataDir, 'lancedb') }),
      blobs: opts.blobs ?? createFsBlobStore({ root: join(dataDir, 'blobs') }),
      events: opts.events ?? new InProcessEventBus(),
      secrets,
      models,
      defaultEmbeddingModel: await resolveDefaultModel(embedders, opts.embeddingModel ?? DEFAULT_EMBEDDING_MODEL, log),
      reranker,
      convert: conversion.run,
      workers: opts.workers,
      plans: opts.plans,
      gate: opts.gate,
      webhooks: {
        sender: opts.webhooks?.sender ?? createHttpWebhookSender({ allowHttpLoopback: opts.webhooks?.allowHttpLoopback }),
        settings: opts.webhooks?.settings,
        allowHttpLoopback: opts.webhooks?.allowHttpLoopback,
      },
      log,
    },
    { retrieval: opts.retrieval, research: opts.research },
  );
  core.start();
  let local: Promise<ScopedDossier> | null = null;
  const closeCore = core.close;
  return Object.assign(core, {
    dataDir,
    /** Drain the workers and release every adapter, then the conversion pool. */
    close: async () => {
      await closeCore();
      await conversion.close();
      // Only a reranker built here is ours to close (a cross-encoder's worker pool).
      if (!opts.reranker) await (reranker as { close?: () => Promise<void> } | null)?.close?.();
    },
    local: () => (local ??= localAccess(core, store).then((a) => scopedDossier(core, a))),
  });
}
