import { apiAccess, principal, suppliedByHost } from '../http/auth.ts';
import { fromSessionCookie } from '../http/session-cookie.ts';
import { openSse } from '../http/sse.ts';
import type { RouteDef, RouteDeps } from './define.ts';

/** How often an open stream checks that the key it was opened with is still valid (issue 9: revoked keys lose their streams). */
export const STREAM_KEY_CHECK_MS = 5_000;

/** The document status stream (SSE); the key may come as `?key=` because browser EventSource cannot set headers. */
export function eventRoutes({ dossier }: RouteDeps): RouteDef[] {
  return [
    {
      method: 'get', path: '/v1/collections/:id/documents/events', operationId: 'streamDocumentEvents', tag: 'events', auth: 'key-or-public', queryKey: true, longRunning: true,
      summary: 'Server-Sent Events of document status changes (DocumentEvent per message, ping every 20 s); closes within 5 s of its key being revoked',
      responses: { 200: { description: 'DocumentEvent {documentId, collectionId, status, sectionCount?, env} per message (env: the collection\'s sandbox, live or test)', contentType: 'text/event-stream' }, 401: 'Invalid key', 404: 'Not found', 503: 'Live events unavailable: the event bus did not accept the subscription (the stream is not opened)' },
      handle: async (ctx) => {
        const access = apiAccess(ctx);
        const caller = principal(ctx);
        let stream: ReturnType<typeof openSse> | null = null;
        const unsubscribe = await dossier.events.subscribe(access, ctx.params.id, (e) => stream?.send(e));
        stream = openSse(ctx);
        const opened = stream;
        // A key Dossier resolved is re-checked; a caller the host application supplied is the host's to end, and a
        // dashboard session (no key behind it) ends with the page.
        const check = caller.kind === 'project_key' && !suppliedByHost(ctx) && !fromSessionCookie(ctx)
          ? setInterval(() => {
              dossier.auth.isKeyActive(caller.keyId).then((active) => active || opened.close(), () => {});
            }, STREAM_KEY_CHECK_MS)
          : null;
        opened.signal.addEventListener('abort', () => {
          unsubscribe();
          if (check) clearInterval(check);
        });
      },
    },
  ];
}
