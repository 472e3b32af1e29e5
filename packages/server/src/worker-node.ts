import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** The paths a worker node answers; the API's own health routes use the same two. */
const HEALTH_PATHS = new Set(['/health', '/v1/health']);

/**
 * The HTTP face of a `worker` node (issue 13): only a health check, so an orchestrator can tell a live worker
 * from a stuck one. Every other request is a 404; the API lives on the `api` nodes.
 */
export function workerHealthServer(health: () => Record<string, unknown>): Server {
  return createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const found = req.method === 'GET' && HEALTH_PATHS.has(path);
    const body = found ? { status: 'ok', role: 'worker', ...health() } : { error: 'Not found: this is a worker node; the API is served by api nodes' };
    res.writeHead(found ? 200 : 404, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(JSON.stringify(body));
  });
}
