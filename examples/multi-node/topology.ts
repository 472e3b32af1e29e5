/**
 * Start Dossier nodes as child processes of this one: the building block of examples/multi-node/start.ts, the
 * multi-node test (packages/server/test/multi-node.test.ts) and bench/multi-node.ts. Each node is `dossier serve`'s
 * server (packages/server/src/main.ts) with a role and the deployment's shared settings in its environment.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../../packages/server/src/main.ts', import.meta.url));

/** One running node. */
export interface NodeProcess {
  name: string;
  role: 'api' | 'worker' | 'all';
  /** Base URL the node listens at (an API node's API, a worker's health check). */
  url: string;
  child: ChildProcess;
  /** The node's own data directory (DOSSIER_DATA_DIR). */
  dataDir: string;
  /** What the node printed. */
  stdout: string;
  /** Its JSON log lines. */
  stderr: string;
}

/** Credentials the first API node of a fresh deployment printed. */
export interface Bootstrap {
  liveKey: string;
  projectId: string;
}

/**
 * Start a node and resolve once it logs the address it listens on (port 0 picks a free port). `cpus` (a taskset
 * list such as `1`) keeps the node on those cores, as if it ran on a machine of its own that size (Linux only).
 */
export function startNode(name: string, role: NodeProcess['role'], env: Record<string, string>, timeoutMs = 60_000, cpus?: string): Promise<NodeProcess> {
  const command = [process.execPath, '--import', TSX, MAIN];
  const [file, ...args] = cpus ? ['taskset', '-c', cpus, ...command] : command;
  const child = spawn(file!, args, { env: { ...process.env, ...env, DOSSIER_ROLE: role }, stdio: ['ignore', 'pipe', 'pipe'] });
  const node: NodeProcess = { name, role, url: '', child, dataDir: env.DOSSIER_DATA_DIR ?? './data', stdout: '', stderr: '' };
  child.stdout!.on('data', (b: Buffer) => {
    node.stdout += b.toString();
  });
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      reject(new Error(`${name} ${why}:\n${node.stderr.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs} ms`), timeoutMs);
    child.stderr!.on('data', (b: Buffer) => {
      node.stderr += b.toString();
      const listening = /"msg":"listening".*?"url":"([^"]+)"/.exec(node.stderr);
      if (listening && !node.url) {
        node.url = listening[1]!;
        clearTimeout(timer);
        resolve(node);
      }
    });
    child.once('exit', (code, signal) => node.url || fail(`exited (${code ?? signal}) before listening`));
  });
}

/** The key and project an API node created on the deployment's first start (saved in its data directory), or null. */
export function bootstrapOf(node: NodeProcess): Bootstrap | null {
  const file = join(node.dataDir, 'bootstrap-credentials.txt');
  if (!existsSync(file)) return null;
  const fields = new Map(
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.split('=', 2) as [string, string]),
  );
  const liveKey = fields.get('live_api_key');
  const projectId = fields.get('project_id');
  return liveKey && projectId ? { liveKey, projectId } : null;
}

/** Stop a node (SIGTERM drains its jobs; SIGKILL is a crash) and resolve when it has exited. */
export async function stopNode(node: NodeProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill(signal);
  await exited;
}

/** What every node of one deployment shares: where metadata, jobs, events, files and the index live. */
export interface Deployment {
  databaseUrl: string;
  redisUrl: string;
  /** Prefix of the deployment's Redis keys and channels. */
  redisPrefix: string;
  s3Url: string;
  /** A directory every node sees. */
  indexDir: string;
  /** 64 hex characters: the same master key on every node. */
  masterKey: string;
}

/** The environment of a node of the deployment; `dataDir` is the node's own (its model cache, temporary files). */
export function nodeEnvironment(d: Deployment, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DOSSIER_DATABASE_URL: d.databaseUrl,
    DOSSIER_REDIS_URL: d.redisUrl,
    DOSSIER_REDIS_PREFIX: d.redisPrefix,
    DOSSIER_S3_URL: d.s3Url,
    DOSSIER_INDEX_DIR: d.indexDir,
    DOSSIER_MASTER_KEY: d.masterKey,
    DOSSIER_DATA_DIR: dataDir,
    DOSSIER_HOST: '127.0.0.1',
    DOSSIER_PORT: '0',
    ...extra,
  };
}
