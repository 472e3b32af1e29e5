import { keyToWatch } from '../http/auth.ts';
import { openSse } from '../http/sse.ts';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** How often an open stream checks that the key it was opened with is still valid (issue 9: revoked keys lose their streams). */
export const STREAM_KEY_CHECK_MS = 5_000;

/** The document status stream (SSE); the key may come as `?key=` because browser EventSource cannot set headers. */
export function eventRoutes({ dossier }: RouteDeps): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/v1/collections/:id/documents/events',
      operationId: 'streamDocumentEvents',
      tag: 'events',
      auth: 'key-or-public',
      queryKey: true,
      longRunning: true,
      summary: 'Server-Sent Events of document status changes (DocumentEvent per message, ping every 20 s); closes within 5 s of its key being revoked',
      responses: {
        200: {
          description: "DocumentEvent {documentId, collectionId, status, sectionCount?, env} per message (env: the collection's sandbox, live or test)",
          contentType: 'text/event-stream',
        },
        401: 'Invalid key',
        404: 'Not found',
        503: 'Live events unavailable: the event bus did not accept the subscription (the stream is not opened)',
      },
      handle: async (ctx, { caller: access }) => {
        const watched = keyToWatch(ctx);
        let stream: ReturnType<typeof openSse> | null = null;
        const unsubscribe = await dossier.events.subscribe(access, ctx.params.id, (e) => stream?.send(e));
        stream = openSse(ctx);
        const opened = stream;
        const check = watched
          ? setInterval(() => {
              dossier.auth.isKeyActive(watched).then(
                (active) => active || opened.close(),
                () => {},
              );
            }, STREAM_KEY_CHECK_MS)
          : null;
        opened.signal.addEventListener('abort', () => {
          unsubscribe();
          if (check) clearInterval(check);
        });
      },
    }),
  ];
}
