/**
 * The MCP tool server over Streamable HTTP (issue 18): a tool-call transcript per caller (project API key, OAuth
 * svc:read, OAuth svc:full — the OAuth principals set through the server's test-only fixed principal), and the
 * latency of `svc_search` over MCP next to the same query as `POST /v1/collections/:id/query`, interleaved query by
 * query against one server (after a warm-up). `--out` writes the figures to RESULTS.md and the transcripts to
 * bench/mcp-transcripts.md.
 *
 *   node --import tsx bench/mcp.ts [--documents 200] [--queries 300] [--out bench/RESULTS.md]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { OAuthScope, Principal } from '@dossier/core';
import { loadConfig, startServer } from '@dossier/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { commandLine, interleaved, latencyRows, markdownTable, type Row, section, upsertSection } from './beir/report.ts';

const { values } = parseArgs({
  options: { documents: { type: 'string', default: '200' }, queries: { type: 'string', default: '300' }, out: { type: 'string' } },
});

/** Deterministic words with a Zipf-like distribution, so queries hit some documents and not others. */
function words(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return (n: number) => Array.from({ length: n }, () => `w${Math.floor(5_000 ** next()).toString(36)}`).join(' ');
}

const dataDir = await mkdtemp(join(tmpdir(), 'dossier-bench-mcp-'));
let fixedPrincipal: Principal | null = null;
const quiet = { info: () => {}, warn: () => {}, error: (msg: string, data?: unknown) => console.error(msg, data) };
const config = {
  ...loadConfig([], {}),
  host: '127.0.0.1',
  port: 0,
  dataDir,
  embeddingModel: 'none',
  allowModelDownload: false,
  workers: 4,
  rateLimitKey: null,
};
const server = await startServer(Object.freeze(config), { log: quiet, mcpPrincipal: () => fixedPrincipal });
const key = server.bootstrap!.liveKey;
const projectId = server.bootstrap!.projectId;
const auth = { authorization: `Bearer ${key}` };

/** JSON in and out of /v1 with the live key. */
async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}/v1${path}`, {
    method,
    headers: { ...auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A collection of generated Markdown documents, each with three sections, every one ready. */
async function corpus(count: number): Promise<{ collectionId: string; documentId: string }> {
  const { id } = await api<{ id: string }>('POST', '/collections', { projectId, name: 'bench' });
  const text = words(7);
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const form = new FormData();
    form.set('file', new Blob([`# Report ${n}\n\n## Findings\n\n${text(200)}\n\n## Methods\n\n${text(200)}\n\n## Notes\n\n${text(100)}\n`]), `report-${n}.md`);
    const res = await fetch(`${server.url}/v1/collections/${id}/documents`, { method: 'POST', headers: auth, body: form });
    ids.push(((await res.json()) as { id: string }).id);
  }
  await server.dossier.idle();
  return { collectionId: id, documentId: ids[0]! };
}

/** One JSON-RPC exchange at /mcp, as a transcript entry: the request, the status, the challenge and the messages. */
async function rpc(headers: Record<string, string>, session: string | null, body: Record<string, unknown>) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const messages = res.headers.get('content-type')?.includes('event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: ') && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)))
    : text
      ? [JSON.parse(text)]
      : [];
  return { status: res.status, session: res.headers.get('mcp-session-id'), challenge: res.headers.get('www-authenticate'), messages };
}

/** A short, readable form of a message (long results cut). */
const brief = (value: unknown): string => {
  const json = JSON.stringify(value);
  return json.length > 400 ? `${json.slice(0, 400)}…` : json;
};

/** What a message says: a result's structured content (or its text when it is an error), or the JSON-RPC error. */
function shown(message: { result?: { structuredContent?: unknown; isError?: boolean; content?: { text?: string }[] }; error?: unknown }): unknown {
  const result = message.result;
  if (!result) return { error: message.error };
  return result.isError ? { isError: true, text: result.content?.[0]?.text } : { structuredContent: result.structuredContent };
}

/** The calls of one caller, written as a transcript. */
async function transcript(title: string, headers: Record<string, string>, calls: [string, Record<string, unknown>][]): Promise<string> {
  const lines = [`### ${title}`, ''];
  const opened = await rpc(headers, null, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  lines.push(`→ initialize  ← HTTP ${opened.status}, Mcp-Session-Id ${opened.session ? '(set)' : '(none)'}`);
  let id = 1;
  for (const [name, args] of calls) {
    const call = { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } };
    const answer = await rpc(headers, opened.session, call);
    lines.push('', `→ ${brief(call.params)}`, `← HTTP ${answer.status}${answer.challenge ? `, WWW-Authenticate: ${answer.challenge}` : ''}`);
    for (const message of answer.messages) lines.push(`← ${brief(shown(message))}`);
  }
  return ['', ...lines.map((line) => (line.startsWith('#') || line === '' ? line : `    ${line}`))].join('\n');
}

const oauth = (scopes: OAuthScope[]): Principal => ({ kind: 'oauth', accountId: 'bench-account', clientId: 'bench-client', projectId, env: 'live', scopes });

async function transcripts(collectionId: string, documentId: string): Promise<string> {
  const reads: [string, Record<string, unknown>][] = [
    ['svc_list_collections', {}],
    ['svc_search', { collectionId, query: 'w1 w2', limit: 2 }],
    ['svc_get_document', { documentId }],
  ];
  const writes: [string, Record<string, unknown>][] = [
    ['svc_create_collection', { name: 'made over MCP' }],
    ['svc_update_document', { collectionId, documentId, tags: ['reviewed'] }],
    ['svc_get_document', { documentId: '01a20000-0000-7000-8000-000000000000' }],
  ];
  const parts = [await transcript('Project API key (every tool)', auth, [...reads, ...writes])];
  fixedPrincipal = oauth(['svc:read']);
  parts.push(await transcript('OAuth token with svc:read', {}, [...reads, ...writes.slice(0, 2)]));
  fixedPrincipal = oauth(['svc:full']);
  parts.push(await transcript('OAuth token with svc:full', {}, [reads[1]!, writes[1]!]));
  fixedPrincipal = null;
  return parts.join('\n');
}

/** svc_search over MCP and the same query over /v1, one query at a time, alternating. */
async function latency(collectionId: string, count: number): Promise<Row[]> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: auth } }));
  const text = words(11);
  const queries = Array.from({ length: count }, () => text(3));
  const contenders: Record<string, (q: string) => Promise<unknown>> = {
    'HTTP POST /v1/collections/:id/query': (q) => api('POST', `/collections/${collectionId}/query`, { q, limit: 10 }),
    'MCP svc_search (Streamable HTTP)': (q) => client.callTool({ name: 'svc_search', arguments: { collectionId, query: q, limit: 10 } }),
  };
  const samples = await interleaved(queries, contenders, 30);
  await client.close();
  return Object.entries(samples).flatMap(([name, xs]) => latencyRows(name, xs, [50, 95, 99], 2));
}

const load = loadavg()[0]!;
try {
  const { collectionId, documentId } = await corpus(Number(values.documents));
  const talk = await transcripts(collectionId, documentId);
  const table = markdownTable(await latency(collectionId, Number(values.queries)));
  process.stdout.write(`${talk}\n\n${table}\n`);
  if (values.out) {
    const heading = 'MCP — svc_search over Streamable HTTP next to POST /query (issue 18)';
    const notes = [
      `${values.documents} generated Markdown documents (3 sections each), lexical search (embedding none), limit 10, ${values.queries} queries after 30 warm-up, interleaved`,
      "The MCP figure is a whole tools/call: JSON-RPC over the session's POST (an SSE answer), the in-process dispatch of POST /query, and the result as structuredContent",
      'Transcripts of tool calls per caller: bench/mcp-transcripts.md',
      `Load average at the start: ${load.toFixed(1)} (2 cores shared with other test runs: contended figures)`,
    ];
    await upsertSection(values.out, heading, section(heading, commandLine('bench/mcp.ts', process.argv.slice(2)), notes, table));
    await writeFile(
      join(dirname(values.out), 'mcp-transcripts.md'),
      `# MCP tool-call transcripts per caller (issue 18)\n\nWritten by \`bench/mcp.ts\`; JSON-RPC at /mcp, results cut at 400 characters.\n${talk}\n`,
    );
  }
} finally {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
}
