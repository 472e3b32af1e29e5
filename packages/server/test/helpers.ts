/**
 * Fixtures of the HTTP suite: a real server (SQLite, LanceDB, the filesystem) on port 0 in a temp data
 * directory, a small JSON client, bounded waits, and an SSE reader built on fetch.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { openSmallObjects } from '@dossier/adapters';
import type { Embedder, Logger } from '@dossier/core';
import { dossierContext, type ScriptedModel, scriptedResolver } from '@dossier/core/testing';
import { expect } from 'vitest';
import { loadConfig, type ServerConfig } from '../src/config.ts';
import { type RunningServer, type StartOptions, startServer } from '../src/server.ts';
import { checkAgainstContract } from './response-contract.ts';

/** Bounded time for a small document to go through the whole pipeline. */
export const INGEST_TIMEOUT_MS = 30_000;

/** Decoded JSON of a response or an SSE message: the tests check it field by field. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Json = any;

/** A response with its body decoded: JSON when the server says so, text otherwise. */
export interface ApiResponse<T = Json> {
  status: number;
  headers: Headers;
  body: T;
}

/** How a request authenticates: a key or JWT as Bearer, or nothing. */
export interface RequestOptions {
  /** Bearer token; `null` sends no Authorization header. Default: the live key. */
  auth?: string | null;
  /** JSON body (serialised and sent with Content-Type: application/json). */
  json?: unknown;
  /** Raw body (FormData, bytes, or a string sent as-is). */
  body?: RequestInit['body'];
  headers?: Record<string, string>;
}

/** A Document as the API returns it. */
export interface Doc {
  id: string;
  collectionId: string;
  filename: string;
  status: string;
  fileSizeBytes: number | null;
  sectionCount: number | null;
  chunkCount: number | null;
  contentHash: string | null;
  markdownStorageKey: string | null;
  errorMessage: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  createdAt: string;
}

/** A Section as the API returns it. */
export interface Section {
  id: string;
  documentId: string;
  title: string;
  level: number;
  position: number;
  summary: string | null;
  summaryType: string | null;
  chunkCount: number;
  markdownOffsetStart: number;
  markdownOffsetEnd: number;
}

/** A running test server with its bootstrap credentials and a client. */
export interface TestServer {
  url: string;
  dataDir: string;
  config: Readonly<ServerConfig>;
  server: RunningServer;
  liveKey: string;
  testKey: string;
  projectId: string;
  orgId: string;
  email: string;
  password: string;
  /** Error lines the server logged (unexpected 500s show up here). */
  errors: string[];
  /** Every line the server logged (info, warn and error), as its JSON fields. */
  logged: { level: string; msg: string; [field: string]: unknown }[];
  request<T = Json>(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /** Create a collection in the bootstrap project (live unless another key is given). */
  createCollection(extra?: Record<string, unknown>, auth?: string): Promise<{ id: string } & Record<string, unknown>>;
  /** Upload one file by direct multipart upload; expects 202 and returns the Document. */
  upload(collectionId: string, filename: string, content: string | Uint8Array, extra?: UploadExtra): Promise<Doc>;
  /** Long-poll the wait endpoint until the document is ready or in error. */
  waitDone(docId: string, auth?: string | null): Promise<Doc>;
  /** Upload and wait for `ready`, failing with the errorMessage otherwise. */
  ingest(collectionId: string, filename: string, content: string | Uint8Array, extra?: UploadExtra): Promise<Doc>;
  close(): Promise<void>;
}

export interface UploadExtra {
  tags?: unknown;
  metadata?: unknown;
  auth?: string;
  contentType?: string;
}

/** A logger that stays quiet but keeps error lines for diagnosis, and every line for tests of logging. */
function recordingLogger(errors: string[], logged: TestServer['logged']): Logger {
  return {
    info: (msg, data) => logged.push({ level: 'info', msg, ...data }),
    warn: (msg, data) => logged.push({ level: 'warn', msg, ...data }),
    error: (msg, data) => {
      errors.push(`${msg} ${JSON.stringify(data ?? {})}`);
      logged.push({ level: 'error', msg, ...data });
    },
  };
}

/** `sha256:<hex>` of some bytes, as the API writes content hashes. */
export const sha256 = (bytes: string | Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Start a real server in a fresh temp data directory, on port 0, with no embedding model by default. */
export async function startTestServer(
  opts: {
    embedders?: Embedder[];
    config?: Partial<ServerConfig>;
    mcpPrincipal?: StartOptions['mcpPrincipal'];
    adapters?: StartOptions['adapters'];
    oauth?: StartOptions['oauth'];
    dashboard?: StartOptions['dashboard'];
    people?: StartOptions['people'];
  } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-http-'));
  const config: ServerConfig = {
    ...loadConfig([], {}),
    host: '127.0.0.1',
    port: 0,
    dataDir,
    embeddingModel: 'none',
    allowModelDownload: false,
    adminEmail: 'admin@example.test',
    adminPassword: 'correct horse battery staple',
    logLevel: 'silent',
    workers: 2,
    // Suites send many anonymous and bad-credential requests from one address; limits.test.ts turns these on.
    rateLimitAnonymous: null,
    authFailureLimitAddress: null,
    loginLimitAccount: null,
    ...opts.config,
  };
  const errors: string[] = [];
  const logged: TestServer['logged'] = [];
  const frozen = Object.freeze(config);
  const server = await startServer(frozen, {
    log: recordingLogger(errors, logged),
    embedders: opts.embedders,
    mcpPrincipal: opts.mcpPrincipal,
    adapters: opts.adapters,
    oauth: opts.oauth,
    dashboard: opts.dashboard,
    people: opts.people,
  });
  const b = server.bootstrap;
  if (!b) throw new Error('a fresh data directory must bootstrap credentials');

  async function request<T = Json>(method: string, path: string, o: RequestOptions = {}): Promise<ApiResponse<T>> {
    const auth = o.auth === undefined ? b!.liveKey : o.auth;
    const headers: Record<string, string> = { ...o.headers };
    if (auth !== null) headers.authorization = `Bearer ${auth}`;
    let body = o.body;
    if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    }
    const res = await fetch(`${server.url}${path}`, { method, headers, body, signal: AbortSignal.timeout(INGEST_TIMEOUT_MS) });
    const type = res.headers.get('content-type') ?? '';
    const text = await res.text();
    const parsed = /json/.test(type) && text ? JSON.parse(text) : text;
    if (/json/.test(type) && text) await checkAgainstContract(server.url, method, path, res.status, parsed);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  const t: TestServer = {
    url: server.url,
    dataDir,
    config: frozen,
    server,
    liveKey: b.liveKey,
    testKey: b.testKey,
    projectId: b.projectId,
    orgId: b.orgId,
    email: b.email,
    password: b.password,
    errors,
    logged,
    request,
    async createCollection(extra = {}, auth) {
      const res = await request('POST', '/v1/collections', { auth, json: { projectId: b.projectId, name: 'test collection', ...extra } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    },
    async upload(collectionId, filename, content, extra = {}) {
      const res = await request<Doc>('POST', `/v1/collections/${collectionId}/documents`, {
        auth: extra.auth,
        body: uploadForm(filename, content, extra),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body;
    },
    async waitDone(docId, auth) {
      const res = await request<Doc>('GET', `/v1/documents/${docId}/wait`, { auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    },
    async ingest(collectionId, filename, content, extra = {}) {
      const doc = await t.upload(collectionId, filename, content, extra);
      const done = await t.waitDone(doc.id, extra.auth);
      expect(done.status, `${filename}: ${done.errorMessage}`).toBe('ready');
      return done;
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      // A 5xx or a failed response is logged; none should happen in these tests.
      expect(errors, 'errors logged by the server').toEqual([]);
    },
  };
  return t;
}

/** A multipart form with one file and the optional JSON-encoded tags and metadata fields. */
/**
 * The MCP tests' corpus (stdio and HTTP): the server's models answer from `model`, and a 'Reports' collection with
 * summaries and captions off holds one ready report with a Revenue section.
 */
export async function seedReports(t: TestServer, model: ScriptedModel): Promise<{ cid: string; docId: string }> {
  dossierContext(t.server.dossier).models = scriptedResolver(model);
  const cid = (await t.createCollection({ name: 'Reports' })).id;
  await t.request('PATCH', `/v1/collections/${cid}`, { json: { enableSummarization: false, enableCaptioning: false } });
  const docId = (await t.ingest(cid, 'report.md', '# Annual report\n\n## Revenue\n\nRevenue grew 12 percent in 2024.\n')).id;
  await t.server.dossier.idle();
  return { cid, docId };
}

export function uploadForm(filename: string, content: string | Uint8Array, extra: UploadExtra = {}): FormData {
  const form = new FormData();
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  form.append('file', new Blob([bytes], { type: extra.contentType ?? 'application/octet-stream' }), filename);
  if (extra.tags !== undefined) form.append('tags', typeof extra.tags === 'string' ? extra.tags : JSON.stringify(extra.tags));
  if (extra.metadata !== undefined) form.append('metadata', typeof extra.metadata === 'string' ? extra.metadata : JSON.stringify(extra.metadata));
  return form;
}

/** Assert an error response: the status and a `{error}` body whose message matches. */
export function expectError(res: ApiResponse, status: number, message?: RegExp | string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type') ?? '').toMatch(/application\/json/);
  expect(Object.keys(res.body as object)).toEqual(['error']);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.error.length).toBeGreaterThan(0);
  if (message !== undefined) expect(res.body.error).toMatch(message);
}

/** The shared bounded wait (its default bound is INGEST_TIMEOUT_MS), for the suites that import this kit. */
export { waitFor } from '@dossier/core/testing';

/** An open SSE connection: the parsed `data:` messages as they arrive. */
export interface SseReader {
  status: number;
  headers: Headers;
  /** Every message received so far. */
  messages: unknown[];
  /** Comment lines (`: ping`, `: connected`) received so far. */
  comments: string[];
  /** The body of a non-2xx answer (the stream never opened), else null. */
  errorBody: string | null;
  /** Resolve with the first message (already received or future) that matches, within timeoutMs. */
  next<T = Json>(match: (m: Json) => boolean, timeoutMs?: number): Promise<T>;
  close(): void;
}

/** Open an SSE stream with fetch and parse it in the background. The promise resolves once the headers are in. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const abort = new AbortController();
  const headerTimer = setTimeout(() => abort.abort(), INGEST_TIMEOUT_MS);
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal }).finally(() => clearTimeout(headerTimer));
  const messages: unknown[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const pump = async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let cut = buf.indexOf('\n\n');
        while (cut >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trimStart());
          if (data.length) messages.push(JSON.parse(data.join('\n')));
          for (const l of block.split('\n')) if (l.startsWith(':')) comments.push(l.slice(1).trim());
          cut = buf.indexOf('\n\n');
        }
        notify();
      }
    } catch {
      // aborted by close()
    } finally {
      ended = true;
      notify();
    }
  };
  const errorBody = res.ok ? null : await res.text();
  if (res.ok) void pump();
  return {
    status: res.status,
    headers: res.headers,
    errorBody,
    messages,
    comments,
    next(match, timeoutMs = INGEST_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (found !== undefined) return done(() => resolve(found as never));
          if (ended) return done(() => reject(new Error(`stream ended before a matching message; got ${JSON.stringify(messages)}`)));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`no matching SSE message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`))),
          timeoutMs,
        );
        const done = (fn: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          fn();
        };
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}

/** Every file under a folder (recursively), as paths relative to it; empty when the folder does not exist. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

/**
 * The objects stored under a folder of the data directory's blob store, relative to it: its files, and the small
 * originals kept as rows of blobs.db (see small-objects.ts), read through a connection of the test's own.
 */
export async function storedUnder(dataDir: string, folder: string): Promise<string[]> {
  const prefix = `${relative(join(dataDir, 'blobs'), folder).split(sep).join('/')}/`;
  const small = openSmallObjects(join(dataDir, 'blobs.db'));
  try {
    return [...filesUnder(folder), ...small.keys(prefix).map((key) => key.slice(prefix.length))].sort();
  } finally {
    await small.close();
  }
}

/** Send raw bytes over a socket; resolves with what the server answered and when it closed the connection. */
export function rawRequest(url: string, head: string, bodyParts: { bytes: string; afterMs: number }[]): Promise<{ response: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      for (const part of bodyParts) setTimeout(() => socket.writable && socket.write(part.bytes), part.afterMs).unref();
    });
    let response = '';
    socket.on('data', (chunk) => {
      response += chunk.toString();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ response, closedAfterMs: Date.now() - started }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open; got ${JSON.stringify(response)}`));
    }, 8000).unref();
  });
}
