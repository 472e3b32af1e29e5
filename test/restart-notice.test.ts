import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Start `pnpm start`'s entry point on `dataDir`, return what it printed on stdout once ready, and stop it. */
function startAndStop(): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts', '--port', '0', '--data-dir', dataDir, '--workers', '0'], {
    cwd: root,
    env: { ...process.env, DOSSIER_EMBEDDING_MODEL: 'none', DOSSIER_ALLOW_MODEL_DOWNLOAD: 'false', DOSSIER_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const early = (code: number | null) => reject(new Error(`exited with ${code}:\n${out}`));
    const timer = setTimeout(() => reject(new Error(`no start within 30 s:\n${out}`)), 30_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Dossier is ready at .*\n[\s\S]*\n\n/.test(out)) {
        clearTimeout(timer);
        proc.off('exit', early);
        proc.once('exit', () => resolve(out));
        proc.kill('SIGTERM');
      }
    });
    proc.once('exit', early);
  });
}

describe('starting the server again (issue 36)', () => {
  it('prints the credentials once, then on every restart where the file holding them is, and what to do when it is gone', async () => {
    const first = await startAndStop();
    expect(first).toMatch(/live key: {2}dsk_live_/);
    const again = await startAndStop();
    expect(again).not.toMatch(/dsk_live_/);
    expect(again).toContain(`are in ${join(dataDir, 'bootstrap-credentials.txt')}`);
    unlinkSync(join(dataDir, 'bootstrap-credentials.txt'));
    expect(await startAndStop()).toMatch(/credentials file is gone .*dossier keys create/);
  }, 120_000);
});
