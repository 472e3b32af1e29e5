import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

export interface Server {
  proc: ChildProcess;
  url: string;
}

/** Start `pnpm start`'s entry point as a real process and wait for its "listening" log line. */
export function startServer(dataDir: string, extraArgs: string[] = []): Promise<Server> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts', '--port', '0', '--data-dir', dataDir, '--job-lease-ms', '1000', '--workers', '1', ...extraArgs], {
    cwd: root,
    env: { ...process.env, DOSSIER_EMBEDDING_MODEL: 'none', DOSSIER_ALLOW_MODEL_DOWNLOAD: 'false' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 30_000);
    proc.stderr!.on('data', (d: Buffer) => {
      log += d.toString();
      const m = /"msg":"listening","url":"([^"]+)"/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1]! });
      }
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
}


/** The bootstrap credentials a fresh data directory got (key=value lines). */
export function bootstrapCredentials(dataDir: string): Record<string, string> {
  const lines = readFileSync(join(dataDir, 'bootstrap-credentials.txt'), 'utf8').split('\n').filter((l) => l.includes('='));
  return Object.fromEntries(lines.map((l) => l.split('=') as [string, string]));
}
