/**
 * Dossier on several nodes, on this machine: two API nodes and two workers (child processes) sharing Postgres
 * (metadata and jobs), Redis (events and limits), an S3-protocol bucket (files) and one chunk-index directory.
 * Run from a checkout, with PostgreSQL and Redis running:
 *
 *   node --import tsx examples/multi-node/start.ts [--dir ./multi-node-data] [--apis 2] [--workers 2]
 *     [--database-url postgres://postgres@127.0.0.1:5432/dossier_multi_node] [--redis-url redis://127.0.0.1:6379]
 *
 * The database is created when missing. Without DOSSIER_S3_URL in the environment, a local S3 server (s3rver) is
 * started with its objects under <dir>/s3. Ctrl-C stops every node (workers finish their jobs first).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import S3rver from 's3rver';
import { bootstrapOf, type Deployment, type NodeProcess, nodeEnvironment, startNode, stopNode } from './topology.ts';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: './multi-node-data' },
    apis: { type: 'string', default: '2' },
    workers: { type: 'string', default: '2' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/dossier_multi_node' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
  },
});
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true, mode: 0o700 });

/** Create the database when it does not exist yet (connecting to the server's `postgres` database to do it). */
async function ensureDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = decodeURIComponent(admin.pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`database name must be a plain identifier, got '${name}'`);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

/** DOSSIER_S3_URL, or a local S3 server started here with one bucket. */
async function bucketUrl(): Promise<{ url: string; close: () => Promise<void> }> {
  if (process.env.DOSSIER_S3_URL) return { url: process.env.DOSSIER_S3_URL, close: async () => {} };
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'dossier', configs: [] }] });
  const { port } = (await s3.run()) as AddressInfo;
  process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
  return { url: `s3://dossier/files?endpoint=${encodeURIComponent(`http://127.0.0.1:${port}`)}`, close: () => s3.close() };
}

/** The deployment's master key, kept in <dir>/master.key so a restart reads its own secrets back. */
function masterKey(): string {
  const file = join(dir, 'master.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

await ensureDatabase(values['database-url']!);
const bucket = await bucketUrl();
const deployment: Deployment = {
  databaseUrl: values['database-url']!,
  redisUrl: values['redis-url']!,
  redisPrefix: 'dossier-example:',
  s3Url: bucket.url,
  indexDir: join(dir, 'index'),
  masterKey: masterKey(),
};
const nodes: NodeProcess[] = [];
const start = async (name: string, role: NodeProcess['role']) => {
  const node = await startNode(
    name,
    role,
    nodeEnvironment(deployment, join(dir, name), { DOSSIER_EMBEDDING_MODEL: process.env.DOSSIER_EMBEDDING_MODEL ?? 'none' }),
  );
  nodes.push(node);
  process.stdout.write(`${role.padEnd(6)} ${name.padEnd(9)} ${node.url}${role === 'worker' ? '/health' : '/v1'}\n`);
  return node;
};

// The first API node alone: on a fresh database it creates the admin account and the keys, once.
const first = await start('api-1', 'api');
for (let i = 2; i <= Number(values.apis); i++) await start(`api-${i}`, 'api');
for (let i = 1; i <= Number(values.workers); i++) await start(`worker-${i}`, 'worker');
const credentials = bootstrapOf(first);
const saved = join(dir, 'api-1', 'bootstrap-credentials.txt');
if (credentials) process.stdout.write(`\nproject ${credentials.projectId}\nlive key ${credentials.liveKey} (saved in ${saved})\n`);
else process.stdout.write(`\nThis database was set up by another first node; its keys are where that node saved them.\n`);
process.stdout.write('Every API node serves the same data; Ctrl-C stops them all.\n');

let stopping = false;
const stopAll = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.all(nodes.map((node) => stopNode(node)));
  await bucket.close();
  process.exit(0);
};
process.on('SIGINT', () => void stopAll());
process.on('SIGTERM', () => void stopAll());
for (const node of nodes) {
  node.child.once(
    'exit',
    (code, signal) => stopping || process.stderr.write(`${node.name} exited (${code ?? signal}); its log ends:\n${node.stderr.slice(-1000)}\n`),
  );
}
