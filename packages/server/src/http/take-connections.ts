import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Take over the server's `connection` event: `onConnection` sees every accepted socket first and hands the ones to
 * serve to the returned function (the server's own handling, as it was before). Sockets the caller keeps aside are
 * not the HTTP server's, so `closeAllConnections()` misses them and `close()` would wait for them: `held()` lists
 * them, and they are destroyed when the server closes.
 */
export function takeConnections(http: Server, onConnection: (socket: Socket) => void, held: () => Iterable<Socket>): (socket: Socket) => void {
  const serveConnection = http.listeners('connection') as ((socket: Socket) => void)[];
  http.removeAllListeners('connection');
  const close = http.close.bind(http);
  http.close = (callback) => {
    for (const socket of [...held()]) socket.destroy();
    return close(callback);
  };
  http.on('connection', onConnection);
  return (socket) => {
    for (const listener of serveConnection) listener.call(http, socket);
  };
}
