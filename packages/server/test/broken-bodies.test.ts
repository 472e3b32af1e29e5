import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/app.ts';
import { startTestServer, type TestServer, waitFor } from './helpers.ts';

/**
 * Issue 33, finding 1: no request body, however broken, may end the process. A body that ends inside a file part
 * used to make busboy destroy the file stream with 'Unexpected end of form' while nothing listened, and the whole
 * server exited; a multipart Content-Type without a boundary answered 500. Each broken body here is sent to every
 * multipart route of the API, to a real server process, which must answer 4xx `{error}` and then GET /health.
 */

const BOUNDARY = 'XyZ';
const filePart = (body: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\nContent-Type: text/markdown\r\n\r\n${body}`;

/** One broken request body: its Content-Type, its bytes, and what the 400 must name. */
interface BrokenBody {
  name: string;
  contentType: string;
  body: string;
  /** The answer's status and error message; a body the parser could read reaches the route (404: no collection). */
  expect: { status: number; error: RegExp };
}

const BROKEN: BrokenBody[] = [
  {
    name: 'truncated inside a file part',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: filePart('# half a docu'),
    expect: { status: 400, error: /Unexpected end of form/ },
  },
  {
    name: 'truncated inside the part headers',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `--${BOUNDARY}\r\nContent-Disposition: form-da`,
    expect: { status: 400, error: /Malformed multipart body/ },
  },
  {
    name: 'no boundary parameter',
    contentType: 'multipart/form-data',
    body: `${filePart('x')}\r\n--${BOUNDARY}--\r\n`,
    expect: { status: 400, error: /no boundary parameter/ },
  },
  {
    name: 'an empty boundary parameter',
    contentType: 'multipart/form-data; boundary=',
    body: `${filePart('x')}\r\n--${BOUNDARY}--\r\n`,
    expect: { status: 400, error: /no boundary parameter/ },
  },
  {
    name: 'part headers over 16 KB',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
    expect: { status: 400, error: /Malformed part header/ },
  },
  {
    name: 'garbage right after the boundary',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `--${BOUNDARY}\u0000\u00ff garbage \u0001\r\n\r\n`,
    expect: { status: 400, error: /Malformed multipart body|Missing multipart field/ },
  },
  {
    name: 'garbage after the closing boundary',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `${filePart('# whole')}\r\n--${BOUNDARY}--garbage\u0000\u00ff--${BOUNDARY}\r\n`,
    expect: { status: 404, error: /not found/i },
  },
  {
    name: 'only garbage',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: '\u0000\u0001\u0002 not a form at all',
    expect: { status: 400, error: /Unexpected end of form/ },
  },
];

/** The multipart routes of the API, their `:params` filled with ids that name nothing. */
function multipartPaths(t: TestServer): string[] {
  const routes = allRoutes({ dossier: t.server.dossier, config: t.config, publicUrl: () => t.url, limits: t.server.limits });
  return routes
    .filter((r) => r.bodyType === 'multipart/form-data')
    .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:[a-zA-Z]+/g, 'col_does_not_exist')}`);
}

async function send(base: string, key: string, route: string, broken: BrokenBody): Promise<{ status: number; body: { error?: unknown } }> {
  const [method, path] = route.split(' ') as [string, string];
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': broken.contentType },
    body: Buffer.from(broken.body, 'latin1'),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : { error: text } };
}

/** A request whose head promises more body than the client sends before it hangs up. */
function hangUpMidBody(base: string, key: string, path: string): Promise<void> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      const head = `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 100000\r\n\r\n`;
      socket.write(head + filePart('the first bytes of a long file'));
      // A real wait is the behaviour: the server is reading the body (not still parsing the head) when the client goes.
      setTimeout(() => socket.destroy(), 100);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

let t: TestServer;
let paths: string[];
beforeAll(async () => {
  t = await startTestServer();
  paths = multipartPaths(t);
});
afterAll(async () => {
  await t?.close();
});

describe('broken multipart bodies (in process)', () => {
  it('finds the multipart routes in allRoutes', () => {
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /v1/collections/col_does_not_exist/documents',
        'POST /v1/collections/col_does_not_exist/documents/batch',
        'POST /v1/collections/col_does_not_exist/golden-sets/upload',
      ]),
    );
  });

  it.each(BROKEN)('answers $name with a 4xx {error} naming what is wrong, on every multipart route', async (broken) => {
    for (const route of paths) {
      const res = await send(t.url, t.testKey, route, broken);
      expect({ route, status: res.status }).toEqual({ route, status: broken.expect.status });
      expect(String(res.body.error)).toMatch(broken.expect.error);
    }
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });

  it('lets go of an upload whose client hangs up mid-body (logged as a disconnect, not left waiting)', async () => {
    for (const route of paths) await hangUpMidBody(t.url, t.testKey, route.split(' ')[1] as string);
    const templates = new Set(
      allRoutes({ dossier: t.server.dossier, config: t.config, publicUrl: () => t.url, limits: t.server.limits })
        .filter((r) => r.bodyType === 'multipart/form-data')
        .map((r) => r.path),
    );
    const disconnects = () => t.logged.filter((l) => l.msg === 'client disconnected' && templates.has(String(l.route))).length;
    await expect.poll(disconnects, { timeout: 5000 }).toBe(paths.length);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });
});

/** Fragments a multipart body is made of, so generated bodies come close to well-formed as often as not. */
const fragment = fc.oneof(
  fc.constantFrom(
    `--${BOUNDARY}`,
    `--${BOUNDARY}--`,
    '\r\n',
    '\r\n\r\n',
    'Content-Disposition: form-data; name="file"; filename="f.md"',
    'Content-Disposition: form-data; name="tags"',
    'Content-Disposition: form-data; name="metadata"',
    'Content-Type: text/plain',
    '["a"]',
    '{"k":1}',
    '--',
    '"',
  ),
  fc.string({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1')),
);
const contentType = fc.oneof(
  fc.constant(`multipart/form-data; boundary=${BOUNDARY}`),
  fc.constant(`multipart/form-data; boundary="${BOUNDARY}"`),
  fc.constant('multipart/form-data'),
  fc.string({ maxLength: 30 }).map((s) => `multipart/form-data; ${s.replace(/[\r\n]/g, '')}`),
);

/** Properties over the body readers: a generated body never reaches a 5xx, and every refusal is `{error}`. */
describe('fuzzed bodies (fast-check)', () => {
  it('multipart: every generated body is answered 400, 404 or 413 with an error message', async () => {
    await fc.assert(
      fc.asyncProperty(contentType, fc.array(fragment, { maxLength: 12 }), fc.constantFrom(...paths), async (type, parts, route) => {
        const res = await send(t.url, t.testKey, route, { name: 'fuzz', contentType: type, body: parts.join(''), expect: { status: 0, error: /./ } });
        expect([400, 404, 413]).toContain(res.status);
        expect(typeof res.body.error === 'string' && res.body.error.length > 0).toBe(true);
      }),
      { numRuns: 150, seed: 33 },
    );
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });

  it('JSON: every generated body is answered 2xx or 4xx, never 5xx, and 4xx says why', async () => {
    const jsonish = fc.oneof(
      fc.json().map((j) => j.slice(0, Math.max(1, j.length - 1))), // valid JSON cut short by one character
      fc.json(),
      fc.string({ maxLength: 60 }),
      fc.integer({ min: 60, max: 200 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
    );
    await fc.assert(
      fc.asyncProperty(jsonish, fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'), async (body, type) => {
        const res = await fetch(`${t.url}/v1/collections/col_does_not_exist/query`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.testKey}`, 'content-type': type },
          body,
        });
        const answer = (await res.json()) as { error?: unknown };
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof answer.error).toBe('string');
      }),
      { numRuns: 150, seed: 33 },
    );
  });

  it('forms: every generated body of the OAuth token endpoint is answered 4xx, never 5xx', async () => {
    const form = fc.array(fc.tuple(fc.constantFrom('grant_type', 'code', 'client_id', 'refresh_token', 'x'), fc.string({ maxLength: 20 })), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(form, fc.string({ maxLength: 30 }), async (fields, junk) => {
        const body = `${fields.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}${junk}`;
        const res = await fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
        await res.text();
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 100, seed: 33 },
    );
  });
});

/** The real server binary (`dossier-server`), so that an unhandled 'error' event would end a process we can watch. */
describe('broken multipart bodies (a real server process)', () => {
  let child: ChildProcess;
  let base: string;
  let testKey: string;
  let exited: number | null | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-broken-'));

  beforeAll(async () => {
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
    child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0', '--data-dir', dataDir], {
      env: { ...process.env, DOSSIER_EMBEDDING_MODEL: 'none', DOSSIER_ALLOW_MODEL_DOWNLOAD: 'false', DOSSIER_LOG_LEVEL: 'silent', DOSSIER_WORKERS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.on('exit', (code) => {
      exited = code;
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    await waitFor(async () => /test key:\s+(\S+)/.test(out) || exited !== undefined, 'the server to print its first-start keys', 30_000);
    base = (/ready at (\S+)/.exec(out) as RegExpExecArray)[1] as string;
    testKey = (/test key:\s+(\S+)/.exec(out) as RegExpExecArray)[1] as string;
  }, 40_000);
  afterAll(() => {
    if (exited === undefined) child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('keeps running through every broken body on every multipart route, and answers /health', async () => {
    for (const broken of BROKEN) {
      for (const route of paths) {
        const res = await send(base, testKey, route, broken);
        expect({ body: broken.name, route, status: res.status }).toEqual({ body: broken.name, route, status: broken.expect.status });
      }
    }
    for (const route of paths) {
      const [method, path] = route.split(' ') as [string, string];
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${testKey}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'x-padding': 'a'.repeat(20_000) },
        body: filePart('x'),
      });
      expect(res.status, 'request headers over the 16 KB of Node').toBe(431);
    }
    for (const route of paths) await hangUpMidBody(base, testKey, route.split(' ')[1] as string);
    // A real wait is the behaviour: a crash from an abandoned body would come after the hang-up, within this window.
    await new Promise((r) => setTimeout(r, 200));
    expect(exited, 'the server process exited').toBeUndefined();
    expect((await fetch(`${base}/health`)).status).toBe(200);
  }, 30_000);
});
