import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

/** SSE keep-alive ping interval (spec: Limits). */
export const SSE_PING_MS = 20_000;

/** An open Server-Sent Events stream. */
export interface SseStream {
  /** Send one event as a `data: <json>` line and a blank line. */
  send(data: unknown): void;
  /** Send a comment line (`: text`), which SSE clients ignore: a keep-alive that can say what the server is doing. */
  comment(text: string): void;
  /** End the stream. */
  close(): void;
  /** Aborted when the client disconnects or close() is called. */
  signal: AbortSignal;
}

/** Switch the response to SSE, with a comment ping every pingMs so proxies keep the connection open. */
export function openSse(ctx: Context, pingMs = SSE_PING_MS): SseStream {
  const stream = new PassThrough();
  const abort = new AbortController();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  ctx.status = 200;
  ctx.body = stream;
  const ping = setInterval(() => stream.write(': ping\n\n'), pingMs);
  const close = () => {
    if (abort.signal.aborted) return;
    clearInterval(ping);
    abort.abort();
    stream.end();
  };
  // The response's 'close' marks the disconnect: a request whose body was read (POST research) has already
  // emitted its own 'close' by now, so listening on the request would never notice the client leaving.
  ctx.res.on('close', close);
  stream.write(': connected\n\n');
  return {
    send: (data) => {
      if (!abort.signal.aborted) stream.write(`data: ${JSON.stringify(data)}\n\n`);
    },
    comment: (text) => {
      if (!abort.signal.aborted) stream.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
    },
    close,
    signal: abort.signal,
  };
}
