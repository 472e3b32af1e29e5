/**
 * The floor under bench/access-burst.ts: what the same flood costs a minimal Node HTTP server that does nothing but
 * answer 429, on this machine. A child process opens the connections at once from 127.0.0.2 (prebuilt bytes on raw
 * sockets, as access-burst.ts's attacker does); the server answers each with a fixed 429 and counts the CPU it spent
 * and when it accepted each connection. No Dossier code runs: the figures are Node's and the kernel's.
 *
 *   node bench/http-refusal-floor.mjs [--connections 1000] [--runs 3]
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '3' },
    /** Internal: run as the flooding child against this port. */
    attack: { type: 'string' },
  },
});
const CONNECTIONS = Number(values.connections);

/** The child: every connection at once, each sends one request and waits for the server to close it. */
async function flood(port) {
  const request = Buffer.from(
    'POST /v1/collections/x/query HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"q":"abc"}',
  );
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: CONNECTIONS },
      () =>
        new Promise((resolve) => {
          const socket = connect({ port, host: '127.0.0.1', localAddress: process.platform === 'linux' ? '127.0.0.2' : undefined }, () =>
            socket.write(request),
          );
          socket.on('data', () => {});
          socket.on('error', resolve);
          socket.on('close', resolve);
        }),
    ),
  );
  const cpu = process.cpuUsage(cpuBefore);
  process.send({ wallMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 });
}

/** One flood against a fresh server; resolves with the server's and the flood's figures. */
function oneRun() {
  const body = JSON.stringify({ error: 'Too many requests' });
  const server = createServer((_req, res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  const acceptedAt = [];
  server.on('connection', () => acceptedAt.push(performance.now()));
  return new Promise((resolve) => {
    server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
      const cpuBefore = process.cpuUsage();
      const attacker = fork(new URL(import.meta.url).pathname, ['--connections', String(CONNECTIONS), '--attack', String(server.address().port)]);
      attacker.once('message', (attack) => {
        const cpu = process.cpuUsage(cpuBefore);
        server.close();
        const serverCpuMs = (cpu.user + cpu.system) / 1000;
        resolve({ ...attack, serverCpuMs, acceptSpanMs: acceptedAt.at(-1) - acceptedAt[0] });
      });
    });
  });
}

if (values.attack) {
  await flood(Number(values.attack));
  process.exit(0);
}
const rows = [];
for (let run = 0; run < Number(values.runs); run++) rows.push(await oneRun());
const fixed = (n, digits = 0) => n.toFixed(digits);
console.log(`${CONNECTIONS} connections at once from one address to a bare Node HTTP server that answers 429:`);
for (const r of rows) {
  console.log(
    `  flood wall ${fixed(r.wallMs)} ms; server CPU ${fixed(r.serverCpuMs)} ms (${fixed(r.serverCpuMs / CONNECTIONS, 3)} ms a connection); ` +
      `flood CPU ${fixed(r.cpuMs)} ms; first to last accept ${fixed(r.acceptSpanMs)} ms`,
  );
}
