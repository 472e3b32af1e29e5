/**
 * Issue 9's "Done when" figure: a real server (default limits), project A's public collection hit by a burst of
 * anonymous queries from one address, while project B queries its own collection with its key. Prints B's
 * latency before and during the burst, and how the burst was answered (200 / 429 with Retry-After).
 *
 * The burst comes from a child process (its own event loop, as a stranger's client would be), so the server's
 * figures do not include the cost of making a thousand requests.
 *
 *   node --import tsx bench/access-burst.ts [--burst 1000] [--docs 200] [--owner-queries 300] [--out bench/RESULTS.md]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newId } from '@dossier/core';
import { loadConfig, type RunningServer, startServer } from '@dossier/server';
import { percentile } from './beir/metrics.ts';
import { commandLine, fixed, markdownTable, type Row, section, upsertSection } from './beir/report.ts';

const { values, positionals } = parseArgs({
  options: {
    burst: { type: 'string', default: '1000' },
    docs: { type: 'string', default: '200' },
    'owner-queries': { type: 'string', default: '300' },
    'owner-concurrency': { type: 'string', default: '4' },
    out: { type: 'string' },
    /** Internal: run as the attacking child process against this URL and collection id (`<url> <collectionId>`). */
    attack: { type: 'string' },
  },
  allowPositionals: true,
});
const BURST = Number(values.burst);
const DOCS = Number(values.docs);
const OWNER_QUERIES = Number(values['owner-queries']);
const OWNER_CONCURRENCY = Number(values['owner-concurrency']);

const WORDS = 'alpha beta gamma delta epsilon zeta theta iota kappa lambda sigma omega river forest harbour engine ledger'.split(' ');
const text = (seed: number, n: number) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 13) % WORDS.length]).join(' ');

async function call(url: string, key: string | null, path: string, init: { method?: string; json?: unknown; body?: FormData } = {}) {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}${path}`, { method: init.method ?? 'GET', headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
  const body = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: body && res.headers.get('content-type')?.includes('json') ? JSON.parse(body) : body };
}

/** A collection of `DOCS` small Markdown documents, ready. */
async function seedCollection(server: RunningServer, key: string, projectId: string, visibility: 'public' | 'private'): Promise<string> {
  const created = await call(server.url, key, '/v1/collections', { method: 'POST', json: { projectId, name: `${visibility} corpus`, visibility } });
  if (created.status !== 201) throw new Error(`create collection: ${created.status} ${JSON.stringify(created.body)}`);
  const cid = created.body.id as string;
  for (let start = 0; start < DOCS; start += 50) {
    const form = new FormData();
    for (let i = start; i < Math.min(DOCS, start + 50); i++) form.append('file', new Blob([`# Note ${i}\n\n${text(i, 120)}\n`]), `note-${i}.md`);
    const res = await call(server.url, key, `/v1/collections/${cid}/documents/batch`, { method: 'POST', body: form });
    if (res.status !== 202) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await server.dossier.idle();
  return cid;
}

/** Project B of the same org with its own live key (seeded through the library: the management plane is another helper's half). */
async function secondProject(server: RunningServer): Promise<{ projectId: string; key: string }> {
  const a = server.bootstrap!;
  const projectId = newId();
  await server.dossier.context.store.createProject({ id: projectId, orgId: a.orgId, name: 'Project B', createdAt: new Date().toISOString() });
  return { projectId, key: await server.dossier.auth.createKey(projectId, 'live') };
}

/** At least `count` authenticated queries of B (and more while `more()` holds), `concurrency` at a time; each one's latency in ms. */
async function ownerQueries(url: string, key: string, cid: string, count: number, concurrency: number, more = () => false): Promise<{ ms: number[]; failures: number }> {
  const ms: number[] = [];
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < count || more()) {
      const i = next++;
      const started = performance.now();
      const res = await call(url, key, `/v1/collections/${cid}/query`, { method: 'POST', json: { q: text(i, 3), limit: 10 } });
      ms.push(performance.now() - started);
      if (res.status !== 200) failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ms, failures };
}

/** The anonymous burst: every query sent at once from this one address (runs in the child process). */
async function anonymousBurst(url: string, cid: string) {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => call(url, null, `/v1/collections/${cid}/query`, { method: 'POST', json: { q: text(i, 2) } })));
  const retryAfter = answers.filter((a) => a.status === 429).map((a) => Number(a.retryAfter));
  return {
    seconds: (performance.now() - started) / 1000,
    ok: answers.filter((a) => a.status === 200).length,
    limited: retryAfter.length,
    withRetryAfter: retryAfter.filter((s) => Number.isFinite(s) && s >= 1).length,
    other: answers.filter((a) => a.status !== 200 && a.status !== 429).length,
    retryAfterMax: retryAfter.length ? Math.max(...retryAfter) : Number.NaN,
  };
}

type BurstResult = Awaited<ReturnType<typeof anonymousBurst>>;

/** Start the burst in a child process: `started` resolves when it is about to fire, `result` with its figures. */
function burstFromChild(url: string, cid: string): { started: Promise<void>; result: Promise<BurstResult> } {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--burst', String(BURST), '--attack', url, cid], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let go: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    go = resolve;
  });
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.startsWith('go\n')) go();
  });
  const result = new Promise<BurstResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.slice(3)) as BurstResult) : reject(new Error(`burst process exited with ${code}`))));
  });
  return { started, result };
}

const lat = (label: string, xs: number[]): Row[] => [50, 99].map((p) => [`${label} p${p} (ms)`, fixed(percentile(xs, p), 1)] as Row);

if (values.attack) {
  process.stdout.write('go\n'); // the parent starts project B's queries now
  await new Promise((r) => setTimeout(r, 100));
  process.stdout.write(`${JSON.stringify(await anonymousBurst(values.attack, positionals[0] ?? ''))}\n`);
  process.exit(0);
}

const dir = await mkdtemp(join(tmpdir(), 'dossier-access-burst-'));
const config = { ...loadConfig([], {}), port: 0, dataDir: dir, embeddingModel: 'none', allowModelDownload: false, logLevel: 'silent' as const, workers: 2 };
const server = await startServer(Object.freeze(config), { info() {}, warn() {}, error() {} });
try {
  const a = server.bootstrap!;
  const b = await secondProject(server);
  const publicId = await seedCollection(server, a.liveKey, a.projectId, 'public');
  const privateId = await seedCollection(server, b.key, b.projectId, 'private');
  await ownerQueries(server.url, b.key, privateId, 30, OWNER_CONCURRENCY); // warm-up
  const quiet = await ownerQueries(server.url, b.key, privateId, OWNER_QUERIES, OWNER_CONCURRENCY);
  const ownerUsageBefore = (await call(server.url, a.liveKey, '/v1/usage')).body.meters.queries.used as number;
  const attack = burstFromChild(server.url, publicId);
  let attacking = true;
  void attack.result.finally(() => {
    attacking = false;
  });
  await attack.started;
  const [burst, loaded] = await Promise.all([attack.result, ownerQueries(server.url, b.key, privateId, OWNER_QUERIES, OWNER_CONCURRENCY, () => attacking)]);
  const ownerUsageAfter = (await call(server.url, a.liveKey, '/v1/usage')).body.meters.queries.used as number;
  const rows: Row[] = [
    ['anonymous burst queries', String(BURST)],
    ['burst answered 200', String(burst.ok)],
    ['burst answered 429', String(burst.limited)],
    ['429s with Retry-After ≥ 1 s', String(burst.withRetryAfter)],
    ['burst other statuses', String(burst.other)],
    ['largest Retry-After (s)', fixed(burst.retryAfterMax, 0)],
    ['burst wall clock (s)', fixed(burst.seconds, 2)],
    ["queries metered to A's owner by the burst", String(ownerUsageAfter - ownerUsageBefore)],
    ...lat('project B alone', quiet.ms),
    ...lat('project B during the burst', loaded.ms),
    ['project B queries during the burst (non-200)', `${loaded.ms.length} (${loaded.failures})`],
  ];
  const table = markdownTable(rows);
  process.stdout.write(`\n${table}\n`);
  if (values.out) {
    const heading = 'Access — anonymous burst against a public collection, another project querying';
    const notes = [
      `Default limits (anonymous ${config.rateLimitAnonymous ? `${config.rateLimitAnonymous.points}/min + ${config.rateLimitAnonymous.burst} burst` : 'off'} per address, in memory); BM25 only; ${DOCS} documents per collection`,
      `Project B: ${OWNER_QUERIES} queries (limit 10) at concurrency ${OWNER_CONCURRENCY}, first alone, then while the ${BURST} anonymous queries are sent at once from one address`,
    ];
    await upsertSection(values.out, heading, section(heading, commandLine('bench/access-burst.ts', process.argv.slice(2)), notes, table));
  }
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
