import { checkDatabaseUrl, parseRerankerSpec } from '@dossier/adapters';
import {
  DEFAULT_INPUT_BUDGETS,
  DEFAULT_PEOPLE_SETTINGS,
  DEFAULT_RETRIEVAL,
  DEFAULT_TIME_LIMITS_MS,
  DossierError,
  QUERY_EXPANSIONS,
  type QueryExpansion,
  type RateSpec,
  RESEARCH_DEPTHS,
  type ResearchDepth,
} from '@dossier/core';
import {
  CONVERSIONS_AT_ONCE,
  DEFAULT_PIPELINE_CONCURRENCY,
  DEFAULT_RETRY,
  DEFAULT_UPLOAD_CONCURRENCY,
  routeModel,
  SMALL_CONVERSIONS_AT_ONCE,
  SMALL_ORIGINAL_BYTES,
} from '@dossier/core/internal';
import { parseSsoProviders, type SsoProviderConfig } from './people/config.ts';

/** One configuration setting: where it comes from and what it means. The table of docs/configuration.md is generated from this list. */
export interface SettingDoc {
  key: keyof ServerConfig;
  env: string;
  flag: string | null;
  default: string;
  meaning: string;
}

/**
 * What a server process does (issue 13): `api` serves HTTP and enqueues but runs no pipeline job, `worker` claims
 * and runs jobs and serves only a health check, `all` does both (one machine).
 */
export const SERVER_ROLES = ['api', 'worker', 'all'] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];

/** The server's configuration: one frozen object built from flags, then env, then defaults. */
export interface ServerConfig {
  role: ServerRole;
  host: string;
  port: number;
  dataDir: string;
  indexDir: string | null;
  publicUrl: string | null;
  masterKey: string | null;
  embeddingModel: string;
  modelsDir: string | null;
  allowModelDownload: boolean;
  ollamaUrl: string;
  workers: number;
  jobLeaseMs: number;
  adminEmail: string;
  adminPassword: string | null;
  /** Issue 42: whether e-mail and password sign-in is on (off: single sign-on only). */
  passwordSignIn: boolean;
  /** Issue 42: the OpenID Connect identity providers people may sign in with. */
  oidcProviders: readonly SsoProviderConfig[];
  /** Issue 42: where invitation and reset links are e-mailed from (null: the admin passes them on). */
  smtpUrl: string | null;
  mailFrom: string;
  /** Issue 42: lifetimes of invitation links, reset links an admin issues, and reset links e-mailed on request. */
  invitationTtlSeconds: number;
  adminResetTtlSeconds: number;
  emailResetTtlSeconds: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  maxUploadBytes: number;
  anthropicApiKey: string | null;
  anthropicBaseUrl: string | null;
  openaiApiKey: string | null;
  openaiBaseUrl: string | null;
  ollamaChatModel: string | null;
  ollamaBestChatModel: string | null;
  fastModel: string | null;
  bestModel: string | null;
  reranker: string;
  queryExpansion: QueryExpansion;
  rrfK: number;
  lexicalWeight: number;
  vectorWeight: number;
  researchTimeLimitsMs: Readonly<Record<ResearchDepth, number>>;
  researchInputBudgets: Readonly<Record<ResearchDepth, number>>;
  providerRetries: number;
  databaseUrl: string | null;
  redisUrl: string | null;
  s3Url: string | null;
  redisPrefix: string;
  plansFile: string | null;
  rateLimitKey: RateSpec | null;
  rateLimitAnonymous: RateSpec | null;
  anonymousConcurrency: number;
  uploadConcurrency: number;
  /** Issue 43: folders on this server that folder sources may read (empty: folder sources refused). */
  sourceFolders: readonly string[];
  /** Issue 43: whether S3 sources may use endpoints on private (LAN, loopback) addresses; default false (SSRF guard). */
  sourcesAllowPrivateEndpoints: boolean;
  connectionsPerAddress: number;
  loginLimitAccount: RateSpec | null;
  authFailureLimitAddress: RateSpec | null;
  requestTimeoutMs: number;
  bodyIdleTimeoutMs: number;
  corsOrigins: readonly string[];
  trustProxy: boolean;
  webhooksAllowHttpLoopback: boolean;
  webhookRetryBaseMs: number;
}

/** `quick=60s,deep=5m` style: one value per depth, the rest keep their defaults. */
const depthList = (values: Record<ResearchDepth, number>, unit: (v: number) => string) =>
  Object.entries(values)
    .map(([depth, v]) => `${depth}=${unit(v)}`)
    .join(',');
const seconds = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`);

/**
 * Pipeline jobs a server runs at once by default. Measured (bench/ingest/responsiveness.ts, 2,000 SciFact documents
 * over HTTP, 8 uploaders, 2 cores, 2026-11-27, with paced index commits and grouped SQLite commits): 16 → 87 docs/s;
 * 32 → 114; 48 → 108–110 (event-loop p99 18–19 ms); 64 → 120–164 (event-loop p99 16–20 ms, GET /v1/collections p99
 * 27–32 ms); 96 → 92 (p99 22 ms, past the 20 ms goal). Paced commits make each document wait longer for its commit,
 * so fewer jobs at once than this leave the pipeline idle; before pacing, 16 was best (142–150 docs/s).
 */
export const SERVER_PIPELINE_CONCURRENCY = 64;

export const SETTINGS: readonly SettingDoc[] = [
  {
    key: 'role',
    env: 'DOSSIER_ROLE',
    flag: '--role',
    default: 'all',
    meaning: `What this process does: ${SERVER_ROLES.map((r) => `\`${r}\``).join(', ')}. \`api\` serves the HTTP API and enqueues pipeline jobs but never runs one; \`worker\` claims and runs jobs (ingestion, post-ready jobs, webhook deliveries) and serves only \`GET /health\`; \`all\` does both. \`api\` and \`worker\` need a shared store and DOSSIER_REDIS_URL (see Running on several machines).`,
  },
  { key: 'host', env: 'DOSSIER_HOST', flag: '--host', default: '127.0.0.1', meaning: 'Interface to listen on (0.0.0.0 for all).' },
  { key: 'port', env: 'DOSSIER_PORT', flag: '--port', default: '8080', meaning: 'TCP port of the HTTP API.' },
  {
    key: 'dataDir',
    env: 'DOSSIER_DATA_DIR',
    flag: '--data-dir',
    default: './data',
    meaning: 'Where SQLite, LanceDB, stored files, the master key and the bootstrap credentials live.',
  },
  {
    key: 'indexDir',
    env: 'DOSSIER_INDEX_DIR',
    flag: '--index-dir',
    default: '<data-dir>/lancedb',
    meaning:
      'Directory of the LanceDB chunk index. Nodes of one deployment point it at one shared volume; every node reads the latest committed version on each search.',
  },
  {
    key: 'publicUrl',
    env: 'DOSSIER_PUBLIC_URL',
    flag: '--public-url',
    default: 'http://<host>:<port>',
    meaning: 'Base address clients reach the server at; used in presigned upload URLs.',
  },
  {
    key: 'masterKey',
    env: 'DOSSIER_MASTER_KEY',
    flag: null,
    default: '<dataDir>/master.key (created, mode 0600)',
    meaning: '32-byte key (64 hex characters) that encrypts API keys and secrets with AES-256-GCM. Environment only, never a flag.',
  },
  {
    key: 'embeddingModel',
    env: 'DOSSIER_EMBEDDING_MODEL',
    flag: '--embedding-model',
    default: 'Xenova/bge-small-en-v1.5',
    meaning:
      'Embedding model of new collections: a transformers.js model id, `ollama:<name>`, or `none`. Falls back to `none` (BM25 only) when the model cannot be loaded.',
  },
  {
    key: 'modelsDir',
    env: 'DOSSIER_MODELS_DIR',
    flag: '--models-dir',
    default: '(unset)',
    meaning: 'Folder of local model files (`<modelsDir>/<org>/<model>/`), checked before the cache and the hub.',
  },
  {
    key: 'allowModelDownload',
    env: 'DOSSIER_ALLOW_MODEL_DOWNLOAD',
    flag: '--allow-model-download',
    default: 'true',
    meaning: 'Whether missing models may be downloaded from the Hugging Face hub on first use.',
  },
  {
    key: 'ollamaUrl',
    env: 'DOSSIER_OLLAMA_URL',
    flag: '--ollama-url',
    default: 'http://127.0.0.1:11434',
    meaning: 'Base URL of the Ollama server for `ollama:` models.',
  },
  {
    key: 'workers',
    env: 'DOSSIER_WORKERS',
    flag: '--workers',
    default: String(SERVER_PIPELINE_CONCURRENCY),
    meaning: `Pipeline jobs run at once in this process (0 = API only). Jobs mostly wait on storage commits and file syncs, which concurrent jobs share (index commits paced to 10 a second per table, SQLite writes of one event-loop turn committed together); conversions run at most ${CONVERSIONS_AT_ONCE} at once (${SMALL_CONVERSIONS_AT_ONCE} more of files up to ${SMALL_ORIGINAL_BYTES / 1024} KiB) whatever this is. The library's default is ${DEFAULT_PIPELINE_CONCURRENCY}.`,
  },
  {
    key: 'jobLeaseMs',
    env: 'DOSSIER_JOB_LEASE_MS',
    flag: '--job-lease-ms',
    default: '30000',
    meaning: "Lease of a running pipeline job; a crashed worker's job is taken over after this long (heartbeats renew it every third).",
  },
  {
    key: 'adminEmail',
    env: 'DOSSIER_ADMIN_EMAIL',
    flag: '--admin-email',
    default: 'admin@localhost',
    meaning: 'E-mail of the admin account created on first start.',
  },
  {
    key: 'adminPassword',
    env: 'DOSSIER_ADMIN_PASSWORD',
    flag: null,
    default: '(random, printed once)',
    meaning: 'Password of the admin account created on first start. Environment only.',
  },
  {
    key: 'passwordSignIn',
    env: 'DOSSIER_PASSWORD_SIGNIN',
    flag: '--password-signin',
    default: 'on',
    meaning:
      '`on` or `off`: whether people may sign in with e-mail and password (the API, the CLI, the dashboard, the OAuth sign-in page of MCP clients, invitation and reset pages). `off` needs DOSSIER_OIDC_PROVIDERS: single sign-on only (see docs/members.md).',
  },
  {
    key: 'oidcProviders',
    env: 'DOSSIER_OIDC_PROVIDERS',
    flag: null,
    default: '(none)',
    meaning:
      'JSON array of OpenID Connect identity providers people may sign in with: `[{"id":"corp","name":"Corp ID","issuer":"https://…","clientId":"…","clientSecret":"…","allowedDomains":["example.com"],"groupsClaim":"groups","groupRoles":[{"group":"…","orgId":"…","role":"admin"}]}]`; the redirect URI to register is `<public URL>/auth/sso/<id>/callback` (see docs/members.md). Environment only (it holds client secrets).',
  },
  {
    key: 'smtpUrl',
    env: 'DOSSIER_SMTP_URL',
    flag: null,
    default: '(unset: links are shown to the admin only)',
    meaning:
      '`smtp://[user:password@]host[:port]` or `smtps://…`: mail server that sends invitation and password reset links (and lets people ask for a reset link by e-mail). Environment only (it may hold a password).',
  },
  {
    key: 'mailFrom',
    env: 'DOSSIER_MAIL_FROM',
    flag: '--mail-from',
    default: 'Dossier <dossier@localhost>',
    meaning: 'Sender of the e-mails DOSSIER_SMTP_URL sends.',
  },
  {
    key: 'invitationTtlSeconds',
    env: 'DOSSIER_INVITATION_TTL',
    flag: '--invitation-ttl',
    default: '7d',
    meaning: 'How long an invitation link works (`<n>s`, `m`, `h` or `d`; 1 minute to 365 days).',
  },
  {
    key: 'adminResetTtlSeconds',
    env: 'DOSSIER_ADMIN_RESET_TTL',
    flag: '--admin-reset-ttl',
    default: '24h',
    meaning: 'How long a password reset link an admin issues works (passed on by hand); same syntax.',
  },
  {
    key: 'emailResetTtlSeconds',
    env: 'DOSSIER_EMAIL_RESET_TTL',
    flag: '--email-reset-ttl',
    default: '1h',
    meaning: 'How long a password reset link a person asks for by e-mail works (needs DOSSIER_SMTP_URL); same syntax.',
  },
  {
    key: 'logLevel',
    env: 'DOSSIER_LOG_LEVEL',
    flag: '--log-level',
    default: 'info',
    meaning: 'debug, info, warn, error or silent. Logs are JSON lines on stderr.',
  },
  {
    key: 'maxUploadBytes',
    env: 'DOSSIER_MAX_UPLOAD_BYTES',
    flag: '--max-upload-bytes',
    default: '1073741824',
    meaning: 'Largest file accepted through a presigned upload URL (direct uploads stop at 25 MB).',
  },
  {
    key: 'anthropicApiKey',
    env: 'DOSSIER_ANTHROPIC_API_KEY',
    flag: null,
    default: '(unset)',
    meaning: 'Managed Anthropic (provider_a) key for research and post-ready jobs of projects without their own key. Environment only, never logged.',
  },
  {
    key: 'anthropicBaseUrl',
    env: 'DOSSIER_ANTHROPIC_BASE_URL',
    flag: '--anthropic-base-url',
    default: 'https://api.anthropic.com',
    meaning: 'Anthropic API address (a proxy or gateway); applies to managed and project keys.',
  },
  {
    key: 'openaiApiKey',
    env: 'DOSSIER_OPENAI_API_KEY',
    flag: null,
    default: '(unset)',
    meaning: 'Managed OpenAI (provider_b) key, used when a project has no key of its own. Environment only, never logged.',
  },
  {
    key: 'openaiBaseUrl',
    env: 'DOSSIER_OPENAI_BASE_URL',
    flag: '--openai-base-url',
    default: 'https://api.openai.com/v1',
    meaning: 'OpenAI API address (a proxy or compatible server); applies to managed and project keys.',
  },
  {
    key: 'ollamaChatModel',
    env: 'DOSSIER_OLLAMA_CHAT_MODEL',
    flag: '--ollama-chat-model',
    default: '(unset)',
    meaning: 'Ollama chat model (at DOSSIER_OLLAMA_URL) used as the fast default when no Anthropic or OpenAI key is usable, e.g. `llama3.1`.',
  },
  {
    key: 'ollamaBestChatModel',
    env: 'DOSSIER_OLLAMA_BEST_CHAT_MODEL',
    flag: '--ollama-best-chat-model',
    default: '(DOSSIER_OLLAMA_CHAT_MODEL)',
    meaning: 'Ollama chat model used as the high-quality (deep, exhaustive) default.',
  },
  {
    key: 'fastModel',
    env: 'DOSSIER_FAST_MODEL',
    flag: '--fast-model',
    default: '(claude-haiku-4-5, else gpt-4.1-mini)',
    meaning:
      'Model id of the fast tier (quick, balanced research; summaries), used whenever the project can reach its provider. Ids start with claude-, gpt-, o1/o3/o4, chatgpt- or ollama:.',
  },
  {
    key: 'bestModel',
    env: 'DOSSIER_BEST_MODEL',
    flag: '--best-model',
    default: '(claude-sonnet-4-6, else gpt-4.1)',
    meaning: 'Model id of the high-quality tier (deep, exhaustive research), used whenever the project can reach its provider.',
  },
  {
    key: 'reranker',
    env: 'DOSSIER_RERANKER',
    flag: '--reranker',
    default: 'none',
    meaning:
      'Reranker of collections with `enableReranking`: `none`, `cross-encoder[:<model>]` (transformers.js, default model Xenova/ms-marco-MiniLM-L-6-v2, found like embedding models) or `llm[:<model>]` (listwise, the managed provider; default the fast tier). Unavailable → no reranking, logged. The `X-Dossier-Reranker` header names the one that ran.',
  },
  {
    key: 'queryExpansion',
    env: 'DOSSIER_QUERY_EXPANSION',
    flag: '--query-expansion',
    default: DEFAULT_RETRIEVAL.queryExpansion ?? 'none',
    meaning:
      'Default lexical query expansion; the collection setting `queryExpansion` wins. `rm3`: pseudo-relevance feedback on the BM25 list (a second search with the best terms of the top 10 passages; SciFact nDCG@10 0.696 → 0.703, at about twice to three times the lexical search time). `none`: one search.',
  },
  {
    key: 'rrfK',
    env: 'DOSSIER_RRF_K',
    flag: '--rrf-k',
    default: '60',
    meaning: 'Reciprocal Rank Fusion constant k of hybrid search (score = Σ weight / (k + rank)).',
  },
  { key: 'lexicalWeight', env: 'DOSSIER_LEXICAL_WEIGHT', flag: '--lexical-weight', default: '1', meaning: 'Weight of the BM25 list in the fusion.' },
  { key: 'vectorWeight', env: 'DOSSIER_VECTOR_WEIGHT', flag: '--vector-weight', default: '1', meaning: 'Weight of the vector list in the fusion.' },
  {
    key: 'researchTimeLimitsMs',
    env: 'DOSSIER_RESEARCH_TIME_LIMITS',
    flag: '--research-time-limits',
    default: depthList(DEFAULT_TIME_LIMITS_MS, seconds),
    meaning:
      'Wall-clock limit of a research run per depth, retries included (`depth=<n>s` or `<n>m`, comma-separated; depths not named keep their default). A run over it ends with an `error` event (sync: 408) and saves nothing.',
  },
  {
    key: 'researchInputBudgets',
    env: 'DOSSIER_RESEARCH_INPUT_BUDGETS',
    flag: '--research-input-budgets',
    default: depthList(DEFAULT_INPUT_BUDGETS, String),
    meaning:
      'Input tokens a research run may send the model per depth, all model calls together (estimated with cl100k). Each call gets an even share of what is left: a passage is sent in full once per run, older tool results are condensed as the budget nears, and the last turn always fits. Same `depth=<n>` syntax.',
  },
  {
    key: 'providerRetries',
    env: 'DOSSIER_PROVIDER_RETRIES',
    flag: '--provider-retries',
    default: String(DEFAULT_RETRY.maxRetries),
    meaning:
      "Retries of a model call that failed transiently (429, 529, 5xx, a dropped connection) during research, with exponential backoff and jitter from 1 s, honouring `retry-after`, within the run's time limit. A call that already streamed answer text is never retried (the run fails and says so). 0 turns retries off.",
  },
  {
    key: 'databaseUrl',
    env: 'DOSSIER_DATABASE_URL',
    flag: null,
    default: '(unset: SQLite files under <data-dir>)',
    meaning:
      'PostgreSQL (`postgres://user:password@host:5432/database`) holding the metadata and the pipeline job queue, so that several server nodes serve one corpus; the tables are created and migrated at start. Environment only (it may hold a password), never logged. Unset: SQLite (`dossier.db`, `jobs.db` in the data directory).',
  },
  {
    key: 's3Url',
    env: 'DOSSIER_S3_URL',
    flag: '--s3-url',
    default: '(unset: files under <data-dir>/blobs; originals up to 64 KiB in <data-dir>/blobs.db)',
    meaning:
      'S3-protocol bucket for stored files (`s3://bucket/prefix?endpoint=http://host:9000&region=…`; credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the AWS chain), so several server nodes share one file store.',
  },
  {
    key: 'redisUrl',
    env: 'DOSSIER_REDIS_URL',
    flag: '--redis-url',
    default: '(unset: in this process)',
    meaning:
      'Redis (`redis://host:port/db`) where rate limits, login throttles and agent-run slots are counted, so that several server nodes enforce one limit, and through which document events reach every node. Unset: in this process.',
  },
  {
    key: 'redisPrefix',
    env: 'DOSSIER_REDIS_PREFIX',
    flag: '--redis-prefix',
    default: 'dossier:',
    meaning: 'Prefix of every Redis key this server writes (nodes of one deployment share it).',
  },
  {
    key: 'plansFile',
    env: 'DOSSIER_PLANS_FILE',
    flag: '--plans-file',
    default: '(unset: every project unlimited)',
    meaning:
      'JSON file of plans (monthly `queries` and `credits`, `storageMb`, `documents`, `collections`, org `concurrentRuns`; null or absent = unlimited) and which projects and orgs are on them (see Plans and limits). Read at start.',
  },
  {
    key: 'rateLimitKey',
    env: 'DOSSIER_RATE_LIMIT_KEY',
    flag: '--rate-limit-key',
    default: '6000/1m+600',
    meaning:
      'Requests per API key or token: `<n>/<window>` (window `s`, `m`, `h`, e.g. `10s`) with an optional `+<burst>` reserve refilled over ten windows; `off` for none. Beyond: 429 with Retry-After.',
  },
  {
    key: 'rateLimitAnonymous',
    env: 'DOSSIER_RATE_LIMIT_ANONYMOUS',
    flag: '--rate-limit-anonymous',
    default: '60/1m+30',
    meaning:
      "Requests without credentials (public collection reads), per client address; same syntax. Anonymous reads are never metered to, or limited by, the collection owner's plan.",
  },
  {
    key: 'anonymousConcurrency',
    env: 'DOSSIER_ANONYMOUS_CONCURRENCY',
    flag: '--anonymous-concurrency',
    default: '8',
    meaning:
      'Anonymous requests this node serves at once, all addresses together (0: no cap); beyond: 429 with Retry-After 1. Keeps a crowd of strangers from slowing the projects that pay for the node.',
  },
  {
    key: 'uploadConcurrency',
    env: 'DOSSIER_UPLOAD_CONCURRENCY',
    flag: '--upload-concurrency',
    default: String(DEFAULT_UPLOAD_CONCURRENCY),
    meaning:
      'Direct uploads (multipart, single or batch) this node stores at once, after their bodies are received (0: no cap); more wait their turn, in order. Storing a file is a few milliseconds of the event loop, so many at once delay every other caller: with 8 uploaders on 2 cores, no cap read 24-34 ms of event-loop delay at p99 and 2 read 15 ms, storing more documents a second (bench/ingest/responsiveness.ts).',
  },
  {
    key: 'sourcesAllowPrivateEndpoints',
    env: 'DOSSIER_SOURCES_ALLOW_PRIVATE_ENDPOINTS',
    flag: '--sources-allow-private-endpoints',
    default: 'false',
    meaning:
      'Let S3 sources use endpoints on private addresses (10/8, 172.16/12, 192.168/16, loopback, fc00::/7: a MinIO on the LAN or this machine). Otherwise an endpoint must be, and resolve to, a public address; link-local addresses (cloud metadata) are refused either way.',
  },
  {
    key: 'sourceFolders',
    env: 'DOSSIER_SOURCE_FOLDERS',
    flag: '--source-folders',
    default: '(none: folder sources refused)',
    meaning: "Comma-separated absolute folders on this server that collection sources may sync from (a source's folder must be inside one; see docs/sync.md).",
  },
  {
    key: 'connectionsPerAddress',
    env: 'DOSSIER_CONNECTIONS_PER_ADDRESS',
    flag: '--connections-per-address',
    default: '0',
    meaning:
      'Connections one client address may hold open at once (0: no cap, the default). A connection beyond it is answered 429 with Retry-After 1 and closed before its request is parsed, so a flood of connections from one address costs the server little and other callers keep their latency (256 in bench/access-burst.ts). Off by default: under a steady 50 queries/s from one address, 256 turned a short stall into seconds of refusals (bench/sustained-load.ts). Ignored behind a reverse proxy (DOSSIER_TRUST_PROXY), where every connection comes from the proxy.',
  },
  {
    key: 'loginLimitAccount',
    env: 'DOSSIER_LOGIN_LIMIT_ACCOUNT',
    flag: '--login-limit-account',
    default: '10/15m',
    meaning: 'Failed logins per account (e-mail) before login is refused with 429 for the rest of the window; a successful login clears the count.',
  },
  {
    key: 'authFailureLimitAddress',
    env: 'DOSSIER_AUTH_FAILURE_LIMIT_ADDRESS',
    flag: '--auth-failure-limit-address',
    default: '30/15m',
    meaning: 'Failed logins and requests with an invalid key or token per client address before that address is refused with 429 for the rest of the window.',
  },
  {
    key: 'requestTimeoutMs',
    env: 'DOSSIER_REQUEST_TIMEOUT',
    flag: '--request-timeout',
    default: '30s',
    meaning:
      'Time limit of a non-streaming request, body included (`<n>s` or `<n>m`); beyond it the client gets 408 and the connection is closed. Streams, long-polls, research and file uploads are exempt (they have their own limits).',
  },
  {
    key: 'bodyIdleTimeoutMs',
    env: 'DOSSIER_BODY_IDLE_TIMEOUT',
    flag: '--body-idle-timeout',
    default: '10s',
    meaning: 'Longest silence while a request body is being received, on every route (uploads included); a client trickling its body is disconnected.',
  },
  {
    key: 'corsOrigins',
    env: 'DOSSIER_CORS_ORIGINS',
    flag: '--cors-origins',
    default: '(none: no cross-origin access)',
    meaning: 'Comma-separated origins (`https://app.example.com`) whose browser pages may call the API; `*` allows any origin.',
  },
  {
    key: 'trustProxy',
    env: 'DOSSIER_TRUST_PROXY',
    flag: '--trust-proxy',
    default: 'false',
    meaning:
      'Take the client address from `X-Forwarded-For` (only behind a reverse proxy that sets it); otherwise the socket address is the client address of per-address limits.',
  },
  {
    key: 'webhooksAllowHttpLoopback',
    env: 'DOSSIER_WEBHOOKS_ALLOW_HTTP_LOOPBACK',
    flag: '--webhooks-allow-http-loopback',
    default: 'false',
    meaning:
      'Let webhook endpoints be plain-HTTP URLs on a loopback address (local development and tests). Otherwise only HTTPS URLs resolving to public addresses receive deliveries.',
  },
  {
    key: 'webhookRetryBaseMs',
    env: 'DOSSIER_WEBHOOK_RETRY_BASE_MS',
    flag: '--webhook-retry-base-ms',
    default: '10000',
    meaning:
      'Delay before the first webhook retry; the n-th retry waits base×2^(n−1) (capped at 2 h) with jitter down to half, up to 10 retries (default: 10 s, 20 s, 40 s … 85 min).',
  },
];

const fail = (s: SettingDoc, why: string): never => {
  throw new DossierError('invalid_input', `Invalid ${s.flag ?? s.env} / ${s.env}: ${why}`);
};

/** A `depth=value` list merged over the defaults; `parse` reads one value (or returns null when it is bad). */
function depthTable(s: SettingDoc, raw: string, defaults: Record<ResearchDepth, number>, parse: (v: string) => number | null, what: string) {
  const out = { ...defaults };
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [depth, value = ''] = part.split('=').map((p) => p.trim()) as [string, string | undefined];
    if (!(depth in RESEARCH_DEPTHS)) fail(s, `unknown depth '${depth}' (expected ${Object.keys(RESEARCH_DEPTHS).join(', ')})`);
    const n = parse(value);
    if (n === null) fail(s, `expected ${what} for ${depth}, got '${value}'`);
    out[depth as ResearchDepth] = n as number;
  }
  return Object.freeze(out);
}

/** `90s`, `15m` or a bare number of seconds, in milliseconds; at least one second. */
function durationMs(value: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m)?$/i.exec(value);
  if (!m) return null;
  const ms = Math.round(Number(m[1]) * (m[2]?.toLowerCase() === 'm' ? 60_000 : 1000));
  return ms >= 1000 ? ms : null;
}

const LIFETIME_UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `90m`, `24h`, `7d` (or `3600s`) in seconds; from a minute to a year. */
function lifetimeSeconds(value: string): number | null {
  const m = /^(\d+)\s*(s|m|h|d)$/i.exec(value.trim());
  if (!m) return null;
  const seconds = Number(m[1]) * LIFETIME_UNIT_SECONDS[m[2]!.toLowerCase() as keyof typeof LIFETIME_UNIT_SECONDS];
  return seconds >= 60 && seconds <= 365 * 86_400 ? seconds : null;
}

const WINDOW_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `60/1m+30`: 60 per minute plus a reserve of 30; the window's number defaults to 1 (`100/s`). */
function rateSpec(value: string): RateSpec | null {
  const m = /^(\d+)\s*\/\s*(\d+)?\s*(s|m|h)\s*(?:\+\s*(\d+))?$/i.exec(value.trim());
  if (!m || Number(m[1]) < 1) return null;
  const unit = m[3]!.toLowerCase() as keyof typeof WINDOW_MS;
  return Object.freeze({ points: Number(m[1]), durationMs: Number(m[2] ?? 1) * WINDOW_MS[unit], burst: Number(m[4] ?? 0) });
}

/** A whole number of tokens, at least 1,000 (less cannot hold a system prompt and a question). */
const tokenCount = (value: string): number | null => (/^\d+$/.test(value) && Number(value) >= 1000 ? Number(value) : null);

function coerce(s: SettingDoc, raw: string): unknown {
  switch (s.key) {
    case 'port':
    case 'anonymousConcurrency':
    case 'uploadConcurrency':
    case 'connectionsPerAddress':
    case 'workers':
    case 'jobLeaseMs':
    case 'maxUploadBytes': {
      const n = Number(raw);
      const min = ['port', 'workers', 'anonymousConcurrency', 'uploadConcurrency', 'connectionsPerAddress'].includes(s.key)
        ? 0
        : s.key === 'jobLeaseMs'
          ? 100
          : 1;
      if (!Number.isInteger(n) || n < min || (s.key === 'port' && n > 65535))
        fail(s, `expected an integer ${s.key === 'port' ? 'from 0 to 65535' : `of at least ${min}`}, got '${raw}'`);
      return n;
    }
    case 'rrfK':
    case 'lexicalWeight':
    case 'vectorWeight': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || (s.key === 'rrfK' && n === 0))
        fail(s, `expected a ${s.key === 'rrfK' ? 'positive' : 'non-negative'} number, got '${raw}'`);
      return n;
    }
    case 'researchTimeLimitsMs':
      return depthTable(s, raw, DEFAULT_TIME_LIMITS_MS, durationMs, 'a duration such as 90s or 15m (at least 1s)');
    case 'researchInputBudgets':
      return depthTable(s, raw, DEFAULT_INPUT_BUDGETS, tokenCount, 'a whole number of tokens, at least 1000');
    case 'providerRetries': {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0 || n > 10) fail(s, `expected an integer from 0 to 10, got '${raw}'`);
      return n;
    }
    case 'queryExpansion':
      if (!(QUERY_EXPANSIONS as readonly string[]).includes(raw)) fail(s, `expected ${QUERY_EXPANSIONS.join(' or ')}, got '${raw}'`);
      return raw;
    case 'reranker':
      try {
        parseRerankerSpec(raw);
      } catch (err) {
        fail(s, (err as Error).message);
      }
      return raw;
    case 'webhookRetryBaseMs': {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1 || n > 3_600_000) fail(s, `expected milliseconds from 1 to 3600000, got '${raw}'`);
      return n;
    }
    case 'rateLimitKey':
    case 'rateLimitAnonymous':
    case 'loginLimitAccount':
    case 'authFailureLimitAddress':
      return raw.trim().toLowerCase() === 'off' ? null : (rateSpec(raw) ?? fail(s, `expected <n>/<window>[+<burst>] such as 60/1m+30, or off; got '${raw}'`));
    case 'requestTimeoutMs':
    case 'bodyIdleTimeoutMs':
      return durationMs(raw) ?? fail(s, `expected a duration such as 30s or 2m (at least 1s), got '${raw}'`);
    case 'corsOrigins':
      return Object.freeze(
        raw
          .split(',')
          .map((o) => o.trim().replace(/\/$/, ''))
          .filter(Boolean),
      );
    case 'trustProxy':
    case 'allowModelDownload':
    case 'webhooksAllowHttpLoopback':
    case 'sourcesAllowPrivateEndpoints':
      if (!/^(true|false|1|0)$/i.test(raw)) fail(s, `expected true or false, got '${raw}'`);
      return /^(true|1)$/i.test(raw);
    case 'role':
      if (!(SERVER_ROLES as readonly string[]).includes(raw)) fail(s, `expected ${SERVER_ROLES.join(', ')}, got '${raw}'`);
      return raw;
    case 'logLevel':
      if (!['debug', 'info', 'warn', 'error', 'silent'].includes(raw)) fail(s, `expected debug, info, warn, error or silent, got '${raw}'`);
      return raw;
    case 'anthropicBaseUrl':
    case 'openaiBaseUrl':
      if (!/^https?:\/\/[^\s/]+/i.test(raw)) fail(s, `expected an http(s) URL, got '${raw}'`);
      return raw;
    case 'fastModel':
    case 'bestModel':
      try {
        routeModel(raw);
      } catch (err) {
        fail(s, (err as Error).message);
      }
      return raw;
    case 'sourceFolders':
      return sourceFolders(s, raw);
    case 'passwordSignIn':
      if (!/^(on|off)$/i.test(raw.trim())) fail(s, `expected on or off, got '${raw}'`);
      return raw.trim().toLowerCase() === 'on';
    case 'oidcProviders':
      return Object.freeze(parseSsoProviders(raw));
    case 'smtpUrl':
      if (!/^smtps?:\/\/\S+$/i.test(raw.trim())) fail(s, 'expected smtp://… or smtps://…');
      return raw.trim();
    case 'invitationTtlSeconds':
    case 'adminResetTtlSeconds':
    case 'emailResetTtlSeconds':
      return lifetimeSeconds(raw) ?? fail(s, `expected a lifetime such as 90m, 24h or 7d (1 minute to 365 days), got '${raw}'`);
    case 'masterKey':
      if (!/^[0-9a-f]{64}$/i.test(raw)) fail(s, 'expected 64 hexadecimal characters');
      return raw;
    case 'databaseUrl':
      try {
        return checkDatabaseUrl(raw);
      } catch (err) {
        return fail(s, (err as Error).message);
      }
    case 's3Url':
      if (!/^s3:\/\/[^/\s?]+/i.test(raw)) fail(s, `expected s3://bucket[/prefix][?endpoint=…], got '${raw}'`);
      return raw;
    default:
      return raw;
  }
}

/** Parse `--flag value` and `--flag=value` pairs; unknown flags are an error. */
function parseFlags(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (!SETTINGS.some((s) => s.flag === flag)) throw new DossierError('invalid_input', `Unknown option ${flag}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new DossierError('invalid_input', `Option ${flag} needs a value`);
    out.set(flag, value);
  }
  return out;
}

const DEFAULTS = {
  role: 'all',
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  indexDir: null,
  publicUrl: null,
  masterKey: null,
  embeddingModel: 'Xenova/bge-small-en-v1.5',
  modelsDir: null,
  allowModelDownload: true,
  ollamaUrl: 'http://127.0.0.1:11434',
  workers: SERVER_PIPELINE_CONCURRENCY,
  jobLeaseMs: 30_000,
  adminEmail: 'admin@localhost',
  adminPassword: null,
  passwordSignIn: true,
  oidcProviders: [],
  smtpUrl: null,
  mailFrom: 'Dossier <dossier@localhost>',
  ...DEFAULT_PEOPLE_SETTINGS,
  logLevel: 'info',
  maxUploadBytes: 1024 * 1024 * 1024,
  anthropicApiKey: null,
  anthropicBaseUrl: null,
  openaiApiKey: null,
  openaiBaseUrl: null,
  ollamaChatModel: null,
  ollamaBestChatModel: null,
  fastModel: null,
  bestModel: null,
  reranker: 'none',
  queryExpansion: DEFAULT_RETRIEVAL.queryExpansion ?? 'none',
  rrfK: 60,
  lexicalWeight: 1,
  vectorWeight: 1,
  researchTimeLimitsMs: DEFAULT_TIME_LIMITS_MS,
  researchInputBudgets: DEFAULT_INPUT_BUDGETS,
  providerRetries: DEFAULT_RETRY.maxRetries,
  databaseUrl: null,
  redisUrl: null,
  redisPrefix: 'dossier:',
  plansFile: null,
  s3Url: null,
  rateLimitKey: { points: 6000, durationMs: 60_000, burst: 600 },
  rateLimitAnonymous: { points: 60, durationMs: 60_000, burst: 30 },
  anonymousConcurrency: 8,
  uploadConcurrency: DEFAULT_UPLOAD_CONCURRENCY,
  sourceFolders: [],
  sourcesAllowPrivateEndpoints: false,
  connectionsPerAddress: 0,
  loginLimitAccount: { points: 10, durationMs: 15 * 60_000, burst: 0 },
  authFailureLimitAddress: { points: 30, durationMs: 15 * 60_000, burst: 0 },
  requestTimeoutMs: 30_000,
  bodyIdleTimeoutMs: 10_000,
  corsOrigins: [],
  trustProxy: false,
  webhooksAllowHttpLoopback: false,
  webhookRetryBaseMs: 10_000,
} satisfies ServerConfig;

/** Issue 43: comma-separated absolute folders that collection sources may sync from (docs/sync.md). */
function sourceFolders(s: SettingDoc, raw: string): readonly string[] {
  const folders = raw
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (folders.some((f) => !f.startsWith('/'))) fail(s, `expected absolute folder paths separated by commas, got '${raw}'`);
  return Object.freeze(folders);
}

/** Build the frozen config from command-line flags, then the environment, then defaults. */
export function loadConfig(argv: string[] = [], env: NodeJS.ProcessEnv = process.env): Readonly<ServerConfig> {
  const flags = parseFlags(argv);
  const config: Record<string, unknown> = { ...DEFAULTS };
  for (const s of SETTINGS) {
    const raw = (s.flag ? flags.get(s.flag) : undefined) ?? env[s.env];
    if (raw !== undefined && raw !== '') config[s.key] = coerce(s, raw);
  }
  if (config.passwordSignIn === false && (config.oidcProviders as readonly unknown[]).length === 0) {
    throw new DossierError('invalid_input', 'DOSSIER_PASSWORD_SIGNIN=off needs DOSSIER_OIDC_PROVIDERS: nobody could sign in');
  }
  return Object.freeze(config as unknown as ServerConfig);
}

/** The configuration table of docs/configuration.md, generated from SETTINGS. */
export function settingsTable(): string {
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | ${s.flag ? `\`${s.flag}\`` : '—'} | \`${s.default}\` | ${s.meaning} |`);
  return ['| Environment variable | Flag | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
