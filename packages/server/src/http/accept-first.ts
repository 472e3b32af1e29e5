import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { takeConnections } from './take-connections.ts';

/** New connections an address opens in a second that are served as soon as they are accepted. */
const SERVED_AT_ONCE_PER_SECOND = 32;
/** Waiting connections served in one event-loop turn once the server has stopped accepting. */
const SERVED_PER_TURN = 8;
/**
 * Waiting connections served a millisecond, at most, on average. A refusal costs this 2-core machine 0.1–0.3 ms of
 * CPU, so a flood's refusals take at most about a third of a core while other callers are served: answered as fast
 * as they came (~0.25 s for 1,000), they took both cores and another project's query p99 was 101–149 ms; paced,
 * 51–67 ms (bench/access-burst.ts, five bursts pooled, 2026-11-27).
 */
const SERVED_PER_MS = 1;
/** Waiting connections are served after this long even while others keep arriving (a flood that never pauses). */
const LONGEST_WAIT_MS = 1_000;
/** Waiting connections beyond this are closed at once: the flood has outrun any answer. */
const MOST_WAITING = 4_096;

/**
 * Accept a flood's connections before serving them (issue 9), so another caller's new connection is not queued
 * behind it. libuv accepts one connection per event-loop turn, and a turn also runs the work of every connection
 * it already holds, so while a thousand connections from one address sat in the kernel's accept queue, a new
 * connection from anyone else waited until all of them had been answered: 0.6–1.4 s in bench/access-burst.ts, and
 * 0.6–1.1 s for a bare Node server (measured beside bench/http-refusal-floor.mjs). Here an address's first
 * connections of a second are served at once; its later ones are accepted without being read and wait until a turn
 * accepts nothing (the accept queue has drained), or LONGEST_WAIT_MS at most, then are served in order, a few per
 * turn and about one a millisecond. Connections from other addresses are served at once throughout, and open
 * keep-alive connections never wait. Counted by socket address: behind a reverse proxy every connection is the
 * proxy's, so the caller leaves this off there.
 */
export function acceptBeforeServing(http: Server): void {
  // Accepted connections are not read until served, so a waiting one costs a turn nothing (net.Server reads this
  // option's property on every connection; http.createServer does not take it as an option).
  (http as Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
  // A waiting connection has no listener of the HTTP server's yet: an error on it (a reset) just closes it.
  const dropOnError = function (this: Socket) {
    this.destroy();
  };
  const serve = (socket: Socket) => {
    socket.off('error', dropOnError);
    serveByHttp(socket);
    socket.resume();
  };
  const opened = new Map<string, { count: number; since: number }>();
  const waiting: { socket: Socket; since: number }[] = [];
  let acceptedSinceRelease = 0;
  let scheduled = false;
  let tokens = SERVED_PER_TURN;
  let accruedAt = performance.now();
  const release = () => {
    scheduled = false;
    const now = performance.now();
    tokens = Math.min(SERVED_PER_TURN, tokens + (now - accruedAt) * SERVED_PER_MS);
    accruedAt = now;
    const overdue = waiting.length > 0 && Date.now() - waiting[0]!.since > LONGEST_WAIT_MS;
    if (acceptedSinceRelease === 0 || overdue) {
      const count = Math.floor(tokens);
      tokens -= count;
      for (const next of waiting.splice(0, count)) if (!next.socket.destroyed) serve(next.socket);
    }
    acceptedSinceRelease = 0;
    if (waiting.length > 0) schedule(tokens < 1);
  };
  const schedule = (later = false) => {
    if (scheduled) return;
    scheduled = true;
    if (later) setTimeout(release, 1);
    else setImmediate(release);
  };
  const serveByHttp = takeConnections(
    http,
    (socket) => {
      acceptedSinceRelease++;
      const now = Date.now();
      const address = socket.remoteAddress ?? '';
      const earlier = opened.get(address);
      const seen = earlier && now - earlier.since <= 1_000 ? earlier : { count: 0, since: now };
      opened.set(address, seen);
      seen.count++;
      if (seen.count <= SERVED_AT_ONCE_PER_SECOND) return serve(socket);
      if (waiting.length >= MOST_WAITING) return void socket.destroy();
      socket.on('error', dropOnError);
      waiting.push({ socket, since: now });
      schedule();
    },
    () => waiting.splice(0).map((next) => next.socket),
  );
  // Forget the counts of addresses quiet for a while, so the map does not grow forever.
  const forget = setInterval(() => {
    for (const [address, seen] of opened) if (Date.now() - seen.since > 10_000) opened.delete(address);
  }, 10_000).unref();
  http.once('close', () => clearInterval(forget));
}
