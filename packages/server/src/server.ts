import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { acceptBeforeServing } from './http/accept-first.ts';
import { capConnectionsPerAddress } from './http/connection-gate.ts';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import {
  createDossier,
  createLanceChunkIndex,
  createLimitStores,
  createRedisEventBus,
  type DossierOptions,
  type LimitStores,
  type ProviderOptions,
  checkS3Sdk,
  s3BlobStoreFromUrl,
} from '@dossier/adapters';
import {
  type BootstrapResult,
  DEFAULT_RETRIEVAL,
  type Dossier,
  DossierError,
  type Embedder,
  type Logger,
  type ModelProviderFactory,
  type PlanBook,
  planBook,
  type Principal,
} from '@dossier/core';
import { DEFAULT_RETRY } from '@dossier/core/internal';
import { createApp } from './app.ts';
import type { ServerConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { type RequestLimits, requestLimits } from './http/limits.ts';
import { workerHealthServer } from './worker-node.ts';
import { loadPeopleOptions, type PeopleOptions } from './people/config.ts';

/** A running server and how to stop it. */
export interface RunningServer {
  url: string;
  dossier: Dossier;
  /** The data directory (credentials of the first start are saved there). */
  dataDir: string;
  http: Server;
  /** What this process does (DOSSIER_ROLE). */
  role: ServerConfig['role'];
  /** Credentials created on this start (first start only, never on a worker node); null afterwards. */
  bootstrap: BootstrapResult | null;
  /** The rate limits and login throttles this server enforces. */
  limits: RequestLimits;
  close(): Promise<void>;
}

/**
 * The admin line of a first-start banner: the generated password, shown once; never a password the operator
 * supplied (DOSSIER_ADMIN_PASSWORD), which they know and which would otherwise land in terminal scrollback and
 * container logs.
 */
export function bannerAdminLine(config: Pick<ServerConfig, 'adminPassword'>, b: Pick<BootstrapResult, 'email' | 'password'>): string {
  return `${b.email} / ${config.adminPassword === null ? b.password : '(the password set in DOSSIER_ADMIN_PASSWORD)'}`;
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
  /** Where the server logs (default: JSON lines on stderr at config.logLevel). */
  log?: Logger;
  /**
   * Serve a Dossier you made yourself (e.g. `createDossier({ store, blobs, … })`) instead of one built from the
   * config's adapters. It stays yours: `close()` stops the HTTP server and leaves the Dossier open.
   */
  dossier?: Dossier;
  /** Extra embedders served under their own model ids (e.g. a deterministic test embedder). */
  embedders?: Embedder[];
  /** Model provider clients (default: the official SDKs). */
  modelProviders?: ModelProviderFactory;
  /** Adapters of your own (issue 10's seam): store, queue, chunk index, blob storage, event bus; the rest are embedded. */
  adapters?: Pick<DossierOptions, 'store' | 'queue' | 'index' | 'blobs' | 'events'>;
  /** Serve the dashboard at `/` (default: the build in packages/web/dist; false: none). See AppOptions.dashboard. */
  dashboard?: boolean | { dir: string };
  /** Test-only: /mcp requests without credentials act as this principal (the MCP conformance suite cannot log in). */
  mcpPrincipal?: () => Principal | null;
  /** Lifetimes of the MCP endpoint's OAuth codes and tokens, and their clock (tests move it instead of waiting). */
  oauth?: DossierOptions['oauth'];
  /** How people sign in and how links reach them (default: read from the environment, docs/members.md). */
  people?: PeopleOptions;
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

/**
 * Connections the kernel queues for accept() (capped by net.core.somaxconn). Node's default, 511, overflowed under a
 * burst of 1,000 connections at once (bench/access-burst.ts): the kernel dropped SYNs, including those of other
 * tenants' clients, which then waited a full second for the TCP retransmit (B's p99 1,032 ms). A deep queue lets
 * the early-refusal path answer the burst while everyone else's connections are accepted at once.
 */
const LISTEN_BACKLOG = 4096;

/**
 * The HTTP API; requests of a caller already refused by a limit are answered before Koa, connections beyond an
 * address's cap before Node's HTTP parser, and a flood's connections are accepted before they are served (neither
 * behind a trusted proxy, where one address is every client).
 */
function apiServer(app: ReturnType<typeof createApp>, config: Readonly<ServerConfig>, log: Logger): Server {
  const http = createHttpServer((req, res) => void app.handler(req, res));
  if (config.trustProxy) return http;
  if (config.connectionsPerAddress > 0) capConnectionsPerAddress(http, config.connectionsPerAddress, log);
  acceptBeforeServing(http);
  return http;
}

/**
 * A node that is not `all` shares its work with other processes: document events must cross them (an SSE stream or a
 * wait on an API node follows the jobs a worker runs), so Redis is required.
 */
function checkRole(config: Readonly<ServerConfig>): void {
  if (config.role !== 'all' && !config.redisUrl) {
    throw new DossierError(
      'invalid_input',
      `DOSSIER_ROLE=${config.role} (--role) needs DOSSIER_REDIS_URL: without it, document events would not reach the other nodes`,
    );
  }
}

/** Pipeline jobs this process runs: none on an API node. */
const workersOf = (config: Readonly<ServerConfig>) => ({ concurrency: config.role === 'api' ? 0 : config.workers, leaseMs: config.jobLeaseMs });

/** Listen on the configured address; resolves with the base URL clients reach this node at. */
async function listen(http: Server, config: Readonly<ServerConfig>): Promise<string> {
  http.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
  await new Promise<void>((res, rej) => http.once('listening', res).once('error', rej));
  const { port } = http.address() as AddressInfo;
  return config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
}

/**
 * Start a Dossier node: the HTTP API on the embedded default adapters (or those configured by URL), running pipeline
 * jobs too unless its role is `api`; a `worker` node runs jobs and answers only health checks.
 */
export async function startServer(config: Readonly<ServerConfig>, opts: StartOptions = {}): Promise<RunningServer> {
  // Files this process creates (SQLite, LanceDB, blobs, keys) are its user's only: 0600 files, 0700 folders (issue 9).
  process.umask(0o077);
  checkRole(config);
  const log = opts.log ?? createLogger(config.logLevel);
  const limitStores = await createLimitStores(config.redisUrl, config.redisPrefix);
  const dossier = opts.dossier ?? (await dossierOf(config, log, limitStores, opts));
  const dataDir = resolve(config.dataDir);
  const limits = requestLimits(limitStores.rateLimiters, config, log);
  const bootstrap =
    config.role === 'worker' ? null : await dossier.auth.bootstrap(config.adminEmail, config.adminPassword ?? randomBytes(12).toString('base64url'));
  if (bootstrap) log.info('created admin account, org, project and API keys', { file: saveCredentials(dataDir, bootstrap) });
  let url = '';
  const app =
    config.role === 'worker'
      ? null
      : createApp(dossier, {
          config,
          publicUrl: () => url,
          log,
          limits,
          mcpPrincipal: opts.mcpPrincipal,
          dashboard: opts.dashboard ?? true,
          people: opts.people ?? loadPeopleOptions(config, log),
        });
  const http = app ? apiServer(app, config, log) : workerHealthServer(() => ({ workers: config.workers }));
  url = await listen(http, config);
  http.requestTimeout = 0; // long-polls, SSE and large presigned uploads manage their own time limits
  log.info('listening', {
    url,
    role: config.role,
    dataDir,
    database: config.databaseUrl ? 'postgres' : 'sqlite',
    defaultEmbeddingModel: dossier.defaultEmbeddingModel,
  });
  return {
    url,
    dossier,
    dataDir,
    http,
    bootstrap,
    limits,
    role: config.role,
    async close() {
      app?.mcp.sessions.closeAll();
      http.closeAllConnections();
      await new Promise<void>((res) => http.close(() => res()));
      if (!opts.dossier) await dossier.close();
      await limitStores.rateLimiters.close();
    },
  };
}

/** A Dossier from the server's config: the embedded adapters, or shared ones where the config names them. */
async function dossierOf(config: Readonly<ServerConfig>, log: Logger, limitStores: LimitStores, opts: StartOptions): Promise<Dossier> {
  const plans = loadPlans(config.plansFile);
  // S3's SDK is an optional package: a server told to use S3 without it stops at start, saying what to install.
  if (config.s3Url) await checkS3Sdk();
  return createDossier({
    // Postgres holds the metadata and the job queue when configured (issue 13); unset, SQLite files in the data directory.
    databaseUrl: config.databaseUrl ?? undefined,
    // Nodes share one index directory; the nodes that write rows (workers) also keep it optimized (see DOSSIER_INDEX_DIR).
    index: createLanceChunkIndex({
      dir: config.indexDir ?? join(config.dataDir, 'lancedb'),
      optimizeInBackground: config.role !== 'api',
      sharedWithOtherProcesses: config.role !== 'all' || config.databaseUrl !== null || config.indexDir !== null,
    }),
    ...(config.s3Url ? { blobs: s3BlobStoreFromUrl(config.s3Url) } : {}),
    // With Redis, document events cross nodes: an SSE stream on one node follows work done on another (issue 13).
    ...(config.redisUrl ? { events: await createRedisEventBus(config.redisUrl, config.redisPrefix, log) } : {}),
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
    workers: workersOf(config),
    uploads: { concurrency: config.uploadConcurrency },
    sources: { folderRoots: [...config.sourceFolders], maxFileBytes: config.maxUploadBytes, allowPrivateEndpoints: config.sourcesAllowPrivateEndpoints },
    providers: providerOptions(config),
    modelProviders: opts.modelProviders,
    rerankerSpec: config.reranker,
    retrieval: {
      ...DEFAULT_RETRIEVAL,
      rrfK: config.rrfK,
      lexicalWeight: config.lexicalWeight,
      vectorWeight: config.vectorWeight,
      queryExpansion: config.queryExpansion,
    },
    research: {
      timeLimitsMs: config.researchTimeLimitsMs,
      inputTokenBudgets: config.researchInputBudgets,
      retry: { ...DEFAULT_RETRY, maxRetries: config.providerRetries },
    },
    webhooks: { allowHttpLoopback: config.webhooksAllowHttpLoopback, settings: { baseDelayMs: config.webhookRetryBaseMs } },
    oauth: opts.oauth,
    people: {
      invitationTtlSeconds: config.invitationTtlSeconds,
      adminResetTtlSeconds: config.adminResetTtlSeconds,
      emailResetTtlSeconds: config.emailResetTtlSeconds,
    },
    log,
  });
}
