import { type ResearchProgress, responses, schemas } from '@dossier/core';
import { openSse, type SseStream } from '../http/sse.ts';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

/**
 * While a run sends no event (the model is thinking, a retry is waiting), a comment this often says what it waits
 * on and for how long, so proxies keep the connection and the CLI can show that the run is alive (issue 12).
 */
export const RESEARCH_KEEPALIVE_MS = 5_000;

/**
 * Forward run events to the stream, then close it (a closed stream drops late events silently). Progress is not an
 * event of the spec's stream: it goes out as comments, at once and then as keep-alives.
 */
export async function pump(events: AsyncIterable<{ type: string } | ResearchProgress>, stream: SseStream, keepAliveMs = RESEARCH_KEEPALIVE_MS): Promise<void> {
  let status = 'starting';
  let since = Date.now();
  const keepAlive = setInterval(() => stream.comment(`${status}, ${Math.round((Date.now() - since) / 1000)} s`), keepAliveMs);
  try {
    for await (const ev of events) {
      if (!isProgress(ev)) {
        stream.send(ev);
        continue;
      }
      status = ev.message;
      since = Date.now();
      stream.comment(status);
    }
  } finally {
    clearInterval(keepAlive);
    stream.close();
  }
}

const isProgress = (ev: { type: string }): ev is ResearchProgress => ev.type === 'progress';

/** Research: the SSE stream, the buffered answer, and the collection's saved sessions. */
export function researchRoutes({ dossier }: RouteDeps): RouteDef[] {
  const r = dossier.research;
  const startErrors = { 400: 'Invalid input, or no model provider configured', 401: 'API key required', 404: 'Not found' };
  return [
    route({
      method: 'post',
      path: '/v1/collections/:id/research',
      operationId: 'research',
      tag: 'research',
      auth: 'key',
      longRunning: true,
      summary: 'Research with cited answers, streamed as Server-Sent Events: tool_call, chunk, then done or error',
      body: schemas.researchSchema,
      responses: {
        200: {
          contentType: 'text/event-stream',
          description:
            'Events {type: tool_call|chunk|done|error} of {type: tool_call|chunk|done|error}; error carries `code` (e.g. provider_error, timeout), done carries `unresolvedCitations` ' +
            'when the answer cited markers no tool returned (removed from the saved answer). Comment lines (`: waiting for the model (turn 3 of 20), 12 s`) ' +
            'say what the run waits on, at least every 5 s',
        },
        ...startErrors,
      },
      handle: async (ctx, { caller, body }) => {
        // Access, validation and model resolution fail here, as HTTP statuses, before the stream opens.
        const cancel = new AbortController();
        const events = await r.run(caller, ctx.params.id, body, cancel.signal);
        const stream = openSse(ctx);
        // A client that disconnects cancels the run and its provider call; nothing is saved for it.
        stream.signal.addEventListener('abort', () => cancel.abort(), { once: true });
        void pump(events, stream);
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/research/sync',
      operationId: 'researchSync',
      tag: 'research',
      auth: 'key',
      longRunning: true,
      summary: 'Research and return the whole answer with its sources',
      body: schemas.researchSchema,
      responses: {
        200: { description: 'The answer with its sources', schema: responses.researchAnswer },
        ...startErrors,
        408: 'Time limit of the depth reached',
        429: 'Model provider rate limit',
        503: 'Model provider failed (after retries)',
      },
      handle: async (ctx, { caller, body, reply }) => {
        const cancel = new AbortController();
        ctx.res.once('close', () => cancel.abort());
        reply(200, await r.runSync(caller, ctx.params.id, body, cancel.signal));
      },
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/research',
      operationId: 'listResearchSessions',
      tag: 'research',
      auth: 'key',
      summary: 'The last 50 research sessions, newest first',
      responses: { 200: { description: 'The sessions', schema: responses.researchSession.array() }, 401: 'API key required', 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await r.list(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/research/:sessionId',
      operationId: 'getResearchSession',
      tag: 'research',
      auth: 'key',
      summary: 'A research session with its frozen sources',
      responses: { 200: { description: 'The session', schema: responses.researchSession }, 401: 'API key required', 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await r.get(caller, ctx.params.id, ctx.params.sessionId)),
    }),
    route({
      method: 'delete',
      path: '/v1/collections/:id/research/:sessionId',
      operationId: 'deleteResearchSession',
      tag: 'research',
      auth: 'key',
      summary: 'Delete a research session',
      responses: { 204: 'Deleted', 401: 'API key required', 404: 'Not found' },
      handle: async (ctx, { caller }) => {
        await r.remove(caller, ctx.params.id, ctx.params.sessionId);
        noContent(ctx);
      },
    }),
  ];
}
