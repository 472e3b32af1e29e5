/**
 * A local HTTP server that speaks a model provider's wire protocol to the real SDK client: each test queues the
 * replies (JSON, SSE or NDJSON, optionally cut short or left hanging) and reads back the requests it recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the fake provider received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are asserted field by field
  body: any;
}

/** How a streamed reply ends: cleanly, by dropping the connection, or not at all (until the client aborts). */
export type StreamEnd = 'end' | 'drop' | 'hang';

export type Reply = (res: ServerResponse) => void;

export interface WireServer {
  url: string;
  requests: RecordedRequest[];
  /** Queue the replies of the next requests, in order. */
  reply(...replies: Reply[]): void;
  /** Resolves when a client has closed a connection the server was still writing (an aborted request). */
  clientClosed(): Promise<void>;
  close(): Promise<void>;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

function finish(res: ServerResponse, end: StreamEnd): void {
  if (end === 'end') res.end();
  else if (end === 'drop') res.socket?.destroy();
}

/** Server-sent events: `event:` lines when named (Anthropic), bare `data:` lines otherwise (OpenAI). */
export function sse(events: { event?: string; data: unknown }[], end: StreamEnd = 'end'): Reply {
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const e of events) {
      const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
      res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${data}\n\n`);
    }
    finish(res, end);
  };
}

/** Newline-delimited JSON (Ollama's stream). */
export function ndjson(lines: unknown[], end: StreamEnd = 'end'): Reply {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    for (const l of lines) res.write(`${JSON.stringify(l)}\n`);
    finish(res, end);
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : null;
}

/** Start a fake provider on 127.0.0.1 (port 0). An unexpected request gets a 500 naming it. */
export async function startWireServer(): Promise<WireServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const closedWaiters: (() => void)[] = [];
  const server: Server = createServer(async (req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: await readBody(req) });
    res.on('close', () => {
      if (!res.writableFinished) for (const w of closedWaiters.splice(0)) w();
    });
    const next = queue.shift();
    if (next) next(res);
    else json(500, { error: `no reply queued for ${req.method} ${req.url}` })(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => queue.push(...replies),
    clientClosed: () => new Promise((resolve) => closedWaiters.push(resolve)),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every event of a stream, in order. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** The API key a request carried, whichever header the SDK version puts it in (x-api-key or Bearer). */
export const sentKey = (req: RecordedRequest | undefined): string | undefined => {
  const xKey = req?.headers['x-api-key'];
  if (typeof xKey === 'string') return xKey;
  return req?.headers.authorization?.replace(/^Bearer\s+/i, '');
};
