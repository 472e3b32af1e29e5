import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers.ts';

/**
 * Issue 33, finding 6d: the first-start banner printed the admin password even when the operator had supplied it
 * (DOSSIER_ADMIN_PASSWORD), putting it in terminal scrollback and container logs. A generated password is still
 * shown, once, since nobody knows it otherwise.
 */

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Start the real server binary on a fresh data directory; resolves with its stdout once the banner is complete. */
async function firstStart(env: Record<string, string>): Promise<{ stdout: string; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-banner-'));
  dirs.push(dataDir);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DOSSIER_')));
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--port', '0', '--data-dir', dataDir], {
    env: { ...inherited, DOSSIER_EMBEDDING_MODEL: 'none', DOSSIER_ALLOW_MODEL_DOWNLOAD: 'false', DOSSIER_LOG_LEVEL: 'silent', DOSSIER_WORKERS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let exited = false;
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.on('exit', () => {
    exited = true;
  });
  try {
    await waitFor(async () => /test key:.*\n/.test(stdout) || exited, 'the first-start banner', 30_000);
  } finally {
    child.kill('SIGTERM');
  }
  return { stdout, dataDir };
}

describe('the first-start banner', () => {
  it('does not print a password the operator supplied', async () => {
    const password = 'operator-chosen passphrase 7f3a';
    const { stdout } = await firstStart({ DOSSIER_ADMIN_PASSWORD: password, DOSSIER_ADMIN_EMAIL: 'ops@example.test' });
    expect(stdout).toMatch(/admin:\s+ops@example\.test \/ \(the password set in DOSSIER_ADMIN_PASSWORD\)/);
    expect(stdout).not.toContain(password);
  }, 40_000);

  it('prints a generated password, once, as the credentials file holds it', async () => {
    const { stdout, dataDir } = await firstStart({ DOSSIER_ADMIN_EMAIL: 'ops@example.test' });
    const saved = /admin_password=(.+)/.exec(readFileSync(join(dataDir, 'bootstrap-credentials.txt'), 'utf8'))?.[1];
    expect(saved).toMatch(/^\S{12,}$/);
    expect(stdout).toContain(`admin:     ops@example.test / ${saved}`);
  }, 40_000);
});
