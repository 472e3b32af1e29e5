import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  createDossier,
  createLimitStores,
  createRedisEventBus,
  type Dossier,
  type DossierOptions,
  type ProviderOptions,
  s3BlobStoreFromUrl,
} from '@dossier/adapters';
import {
  type BootstrapResult, DEFAULT_RETRIEVAL, DEFAULT_RETRY, DossierError, type Embedder, type Logger, type ModelProviderFactory, type PlanBook, planBook,
} from '@dossier/core';
import { createApp } from './app.ts';
import type { ServerConfig } from './config.ts';
import { type RequestLimits, requestLimits } from './http/limits.ts';

/** A running server and how to stop it. */
export interface RunningServer {
  url: string;
  dossier: Dossier;
  http: Server;
  /** Credentials created on this start (first start only); null afterwards. */
  bootstrap: BootstrapResult | null;
  /** The rate limits and login throttles this server enforces. */
  limits: RequestLimits;
  close(): Promise<void>;
}

/** Write the first-start credentials to a 0600 file in the data directory. */
function saveCredentials(dataDir: string, b: BootstrapResult): string {
  const file = join(dataDir, 'bootstrap-credentials.txt');
  const text = [
    '# Dossier credentials created on first start. Keep this file private.',
    `admin_email=${b.email}`,
    `admin_password=${b.password}`,
    `org_id=${b.orgId}`,
    `project_id=${b.projectId}`,
    `live_api_key=${b.liveKey}`,
    `test_api_key=${b.testKey}`,
    '',
  ].join('\n');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

/** Programmatic extras that have no flag or environment variable (for tests and embedding apps). */
export interface StartOptions {
  /** Extra embedders served under their own model ids (e.g. a deterministic test embedder). */
  embedders?: Embedder[];
  /** Model provider clients (default: the official SDKs). */
  modelProviders?: ModelProviderFactory;
  /** Adapters of your own (issue 10's seam): store, queue, chunk index, blob storage, event bus; the rest are embedded. */
  adapters?: Pick<DossierOptions, 'store' | 'queue' | 'index' | 'blobs' | 'events'>;
}

/** The managed model providers from the config (keys travel to the resolver only, never to a log). */
function providerOptions(config: Readonly<ServerConfig>): ProviderOptions {
  const orUndefined = (v: string | null) => v ?? undefined;
  return {
    anthropic: { apiKey: orUndefined(config.anthropicApiKey), baseUrl: orUndefined(config.anthropicBaseUrl) },
    openai: { apiKey: orUndefined(config.openaiApiKey), baseUrl: orUndefined(config.openaiBaseUrl) },
    ollama: { baseUrl: config.ollamaUrl, chatModel: orUndefined(config.ollamaChatModel), bestChatModel: orUndefined(config.ollamaBestChatModel) },
    fastModel: orUndefined(config.fastModel),
    bestModel: orUndefined(config.bestModel),
  };
}

/** The operator's plans file (DOSSIER_PLANS_FILE), or undefined: every project unlimited. */
function loadPlans(file: string | null): PlanBook | undefined {
  if (!file) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new DossierError('invalid_input', `Cannot read the plans file ${file} (DOSSIER_PLANS_FILE): ${(err as Error).message}`);
  }
  return planBook(raw);
}

/** Start Dossier's HTTP API on the embedded default adapters. */
export async function startServer(config: Readonly<ServerConfig>, log: Logger, opts: StartOptions = {}): Promise<RunningServer> {
  // Files this process creates (SQLite, LanceDB, blobs, keys) are its user's only: 0600 files, 0700 folders (issue 9).
  process.umask(0o077);
  const plans = loadPlans(config.plansFile);
  const limitStores = await createLimitStores(config.redisUrl, config.redisPrefix);
  const dossier = await createDossier({
    ...(config.s3Url ? { blobs: s3BlobStoreFromUrl(config.s3Url) } : {}),
    // With Redis, document events cross nodes: an SSE stream on one node follows work done on another (issue 13).
    ...(config.redisUrl ? { events: await createRedisEventBus(config.redisUrl, config.redisPrefix) } : {}),
    ...opts.adapters,
    plans,
    gate: limitStores.gate,
    dataDir: config.dataDir,
    masterKey: config.masterKey ?? undefined,
    embeddingModel: config.embeddingModel,
    modelsDir: config.modelsDir ?? undefined,
    allowModelDownload: config.allowModelDownload,
    ollamaUrl: config.ollamaUrl,
    embedders: opts.embedders,
    workers: { concurrency: config.workers, leaseMs: config.jobLeaseMs },
    providers: providerOptions(config),
    modelProviders: opts.modelProviders,
    rerankerSpec: config.reranker,
    retrieval: { ...DEFAULT_RETRIEVAL, rrfK: config.rrfK, lexicalWeight: config.lexicalWeight, vectorWeight: config.vectorWeight, queryExpansion: config.queryExpansion },
    research: {
      timeLimitsMs: config.researchTimeLimitsMs,
      inputTokenBudgets: config.researchInputBudgets,
      retry: { ...DEFAULT_RETRY, maxRetries: config.providerRetries },
    },
    webhooks: { allowHttpLoopback: config.webhooksAllowHttpLoopback, settings: { baseDelayMs: config.webhookRetryBaseMs } },
    log,
  });
  const bootstrap = await dossier.auth.bootstrap(config.adminEmail, config.adminPassword ?? randomBytes(12).toString('base64url'));
  if (bootstrap) log.info('created admin account, org, project and API keys', { file: saveCredentials(dossier.dataDir, bootstrap) });
  let url = '';
  const limits = requestLimits(limitStores.rateLimiters, config, log);
  const app = createApp(dossier, config, () => url, log, limits);
  const handle = app.callback();
  const http = createHttpServer((req, res) => {
    if (!limits.refuseEarly(req, res)) void handle(req, res);
  }).listen(config.port, config.host);
  await new Promise<void>((res, rej) => http.once('listening', res).once('error', rej));
  const { port } = http.address() as AddressInfo;
  url = config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  http.requestTimeout = 0; // long-polls, SSE and large presigned uploads manage their own time limits
  log.info('listening', { url, dataDir: dossier.dataDir, defaultEmbeddingModel: dossier.context.defaultEmbeddingModel });
  return {
    url, dossier, http, bootstrap, limits,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((res) => http.close(() => res()));
      await dossier.close();
      await limitStores.rateLimiters.close();
    },
  };
}
