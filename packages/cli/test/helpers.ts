/**
 * Fixtures of the CLI suite: `dossier` run as a subprocess, piped or inside a pseudo-terminal (`script` from
 * util-linux), with a temporary HOME, against a real server started in the test process (the HTTP suite's
 * startTestServer: SQLite, LanceDB, files, no embedding model).
 *
 * How the subprocess runs: `node --import tsx packages/cli/src/main.ts` costs about 0.45 s of CPU per start
 * (tsx's loader), a bundle of the same source made with esbuild when the test file starts costs about 0.1 s;
 * with ~100 runs on a 2-core CI machine that is the difference between a suite near a minute and one of
 * several. So the suite runs the bundle by default; DOSSIER_CLI_TEST_RUNNER=tsx runs every test through tsx
 * instead, and `tsxCli` (used by a test of its own) always does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

import { startTestServer, type TestServer } from '../../server/test/helpers.ts';
export { seedReports, startTestServer, type TestServer, waitFor } from '../../server/test/helpers.ts';

/** The repository root: the CLI runs from here so `--import tsx` resolves. */
export const ROOT = join(import.meta.dirname, '..', '..', '..');
const MAIN = join(ROOT, 'packages', 'cli', 'src', 'main.ts');
/** The CLI exactly as the root `dossier` script runs it. */
export const TSX_CLI = ['node', '--import', 'tsx', MAIN];

let bundled: string | null = null;
/** The command that starts the CLI: the esbuild bundle of src/main.ts (built once per test file), or tsx. */
export async function cliCommand(): Promise<string[]> {
  if (process.env.DOSSIER_CLI_TEST_RUNNER === 'tsx') return TSX_CLI;
  if (!bundled) {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-cli-bundle-'));
    const outfile = join(dir, 'dossier.mjs');
    await build({
      entryPoints: [MAIN],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      external: ['@dossier/server'],
      logLevel: 'warning',
      // bundled CommonJS dependencies call require() for built-in modules
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    });
    bundled = outfile;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return ['node', bundled];
}

/** Bound for one CLI run (a loaded CI machine starts tsx slowly). */
export const RUN_TIMEOUT_MS = 40_000;

/** What a finished run printed and how it exited. */
export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Environment on top of the clean base (PATH and the temp HOME only: nothing leaks from the test's own env). */
  env?: Record<string, string | undefined>;
  /** Bytes for stdin (otherwise stdin is empty). */
  input?: string | Uint8Array;
  cwd?: string;
}

/** A temporary home directory (config.json and state.json go under it), removed by the returned cleanup. */
export function tempHome(): { home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'dossier-cli-home-'));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

function baseEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', SHELL: '/bin/sh', TERM: 'xterm-256color' };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Collect a child's output and exit code. */
function collect(child: ChildProcess, input?: string | Uint8Array): Promise<Result> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString('utf8');
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  child.stdin?.end(input ?? '');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dossier did not finish within ${RUN_TIMEOUT_MS} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Run `dossier <args>` with pipes for stdin, stdout and stderr (so: no terminal). */
export async function dossier(home: string, args: string[], opts: RunOptions & { cli?: string[] } = {}): Promise<Result> {
  const cli = opts.cli ?? (await cliCommand());
  const child = spawn(cli[0]!, [...cli.slice(1), ...args], { cwd: opts.cwd ?? ROOT, env: baseEnv(home, opts.env), stdio: 'pipe' });
  return collect(child, opts.input);
}

/** A `dossier` process left running (watch), with everything it has printed so far. */
export interface Running {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  /** Resolve once the stream's output so far matches (bounded); rejects if the process exits first. */
  until(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolve with the exit code (bounded). */
  exit(timeoutMs?: number): Promise<number | null>;
}

/** Start `dossier <args>` and leave it running; the caller stops it (e.g. with SIGINT). */
export async function spawnDossier(home: string, args: string[], opts: RunOptions & { cli?: string[] } = {}): Promise<Running> {
  const cli = opts.cli ?? (await cliCommand());
  const child = spawn(cli[0]!, [...cli.slice(1), ...args], { cwd: opts.cwd ?? ROOT, env: baseEnv(home, opts.env), stdio: 'pipe' });
  const output = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].on('data', (d: Buffer) => {
      output[stream] += d.toString('utf8');
      for (const w of [...waiters]) w();
    });
  }
  const bounded = <T>(p: Promise<T>, ms: number, what: string) =>
    Promise.race([
      p,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${what} within ${ms} ms; stdout: ${output.stdout}\nstderr: ${output.stderr}`)), ms).unref(),
      ),
    ]);
  return {
    child,
    output,
    until(stream, pattern, timeoutMs = RUN_TIMEOUT_MS) {
      const found = new Promise<string>((resolve, reject) => {
        const check = () => {
          if (pattern.test(output[stream])) {
            waiters.delete(check);
            resolve(output[stream]);
          }
        };
        waiters.add(check);
        check();
        void exited.then(() => {
          check();
          reject(new Error(`dossier exited before printing ${pattern}`));
        });
      });
      return bounded(found, timeoutMs, `no ${pattern} on ${stream}`);
    },
    exit: (timeoutMs = RUN_TIMEOUT_MS) => bounded(exited, timeoutMs, 'the process did not exit'),
  };
}

/** POSIX single quotes around an argument, for the shell that `script` starts. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Run `dossier <args>` inside a pseudo-terminal: `script -qfec <cmd> /dev/null` gives it a tty for stdin,
 * stdout and stderr; everything it writes (both streams) comes back on script's stdout, with \r\n line ends.
 */
export async function dossierTty(home: string, args: string[], opts: RunOptions = {}): Promise<Result> {
  const cmd = [...(await cliCommand()), ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: opts.cwd ?? ROOT, env: baseEnv(home, opts.env), stdio: 'pipe' });
  return collect(child);
}

/** Parse NDJSON output: one object per non-empty line. */
export function ndjson(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting ANSI escape sequences is the point
export const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/;

/** A test file's server and CLI home: started before its tests, stopped after; `run` calls the CLI against them. */
export interface CliAgainstServer {
  /** The server (valid inside tests, once beforeAll ran). */
  readonly server: TestServer;
  /** The CLI's home directory (its config and session files). */
  readonly home: string;
  run(args: string[], input?: string): Promise<Result>;
}

/** Start a test server and a temporary CLI home for this file; the CLI is pointed at the server's first project. */
export function useCliAgainstServer(): CliAgainstServer {
  let server: TestServer | undefined;
  let home: { home: string; cleanup: () => void } | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    home = tempHome();
  });
  afterAll(async () => {
    home?.cleanup();
    await server?.close();
  });
  return {
    get server() {
      return server!;
    },
    get home() {
      return home!.home;
    },
    run: (args, input) =>
      dossier(home!.home, args, { env: { SERVICE_BASE_URL: server!.url, SERVICE_PROJECT_ID: server!.projectId, SERVICE_ORG_ID: server!.orgId }, input }),
  };
}
