import { apiAccess } from '../http/auth.ts';
import { openSse } from '../http/sse.ts';
import type { RouteDef, RouteDeps } from './define.ts';

/** The document status stream (SSE); the key may come as `?key=` because browser EventSource cannot set headers. */
export function eventRoutes({ dossier }: RouteDeps): RouteDef[] {
  return [
    {
      method: 'get', path: '/v1/collections/:id/documents/events', tag: 'events', auth: 'key-or-public', queryKey: true, longRunning: true,
      summary: 'Server-Sent Events of document status changes (DocumentEvent per message, ping every 20 s)',
      responses: { 200: 'text/event-stream', 401: 'Invalid key', 404: 'Not found' },
      handle: async (ctx) => {
        const access = apiAccess(ctx);
        let stream: ReturnType<typeof openSse> | null = null;
        const unsubscribe = await dossier.events.subscribe(access, ctx.params.id, (e) => stream?.send(e));
        stream = openSse(ctx);
        stream.signal.addEventListener('abort', unsubscribe);
      },
    },
  ];
}
