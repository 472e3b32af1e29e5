/** A real webhook receiver on loopback for tests: verifies every signature with its own constant-time check. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  id: string;
  type: string;
  signatureValid: boolean;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the body field by field
  body: any;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Status to answer with for the next requests (a queue; when empty, 200). */
  answers: number[];
  /** Stop listening (connections are then refused). */
  down(): Promise<void>;
  /** Listen again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** HMAC-SHA256 of the raw body compared in constant time, written here independently of the service's code. */
function signatureMatches(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(secretOf: () => string): Promise<Receiver> {
  const received: Received[] = [];
  const answers: number[] = [];
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString('utf8'));
      received.push({
        id: String(req.headers['x-service-event-id']),
        type: String(req.headers['x-service-event-type']),
        signatureValid: signatureMatches(secretOf(), raw, req.headers['x-service-signature'] as string | undefined),
        headers: req.headers,
        raw: raw.toString('utf8'),
        body,
      });
      const status = answers.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : `failing with ${status}`);
    });
  };
  let server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const stop = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    answers,
    down: stop,
    async up() {
      server = createServer(handler);
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    close: stop,
  };
}
