/**
 * The README runs as written (issue 36): its first session (curl + jq) against a real server process on a temporary
 * data directory, its library program with plain `node` (through tsx, as the workspace runs TypeScript sources), and
 * its CLI block through the workspace's `dossier` entry point. Only the server address and the placeholders the
 * README asks the reader to fill in are substituted.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { signBody } from '@dossier/core/webhook-signing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapCredentials, type Server, startServer } from './server-process.ts';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The fenced blocks of one `## ` section of the README (or another page), in order. */
function blocksOf(heading: string, language: string, page = readme): string[] {
  const start = page.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section '## ${heading}'`);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

const onPath = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
const shellTools = onPath('bash') && onPath('curl') && onPath('jq');

let work: string;
let server: Server;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'dossier-readme-'));
  server = await startServer(join(work, 'data'));
}, 60_000);
afterAll(async () => {
  // The server's close() on SIGTERM still folds the index into the data directory: wait for the process to end before
  // removing it (removing at once raced that write: ENOTEMPTY in CI).
  const proc = server?.proc;
  if (proc && proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const gaveUp = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(gaveUp);
  }
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}, 60_000);

describe('the README, run as written', () => {
  it.skipIf(!shellTools)('runs the first session (curl and jq) against a real server: collection, upload, wait, query, scan, Markdown, events, webhook', () => {
    const [session] = blocksOf('A first session', 'sh');
    expect(session).toContain('B=http://127.0.0.1:8080/v1\n');
    const script = session!.replace('B=http://127.0.0.1:8080/v1\n', `B=${server.url}/v1\n`);
    const out = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: work, encoding: 'utf8', timeout: 60_000 });
    expect(out).toContain('{"status":"ready","sectionCount":3,"chunkCount":3}');
    expect(out).toContain('The river floods every spring because the snow in the hills melts within a few weeks.');
    expect(out).toMatch(/^What the town did$/m);
    expect(out).toContain('# Field notes\n\n## Why the river floods');
    expect(out).toContain(': connected');
    expect(out).toMatch(/^[0-9a-f]{64}$/m);
  }, 90_000);

  it('runs the library program with node: ingests notes.md and finds the flooding section', () => {
    const [program] = blocksOf('As a library', 'js');
    // Inside the workspace, so that `@dossier/adapters` and tsx resolve as they would from an app's node_modules.
    const app = mkdtempSync(join(root, 'node_modules', '.readme-app-'));
    try {
      writeFileSync(join(app, 'search.mjs'), program!);
      writeFileSync(join(app, 'notes.md'), '# Field notes\n\n## Why the river floods\n\nThe river floods every spring because the snow melts.\n\n## What the town did\n\nIt built a bridge.\n');
      const out = execFileSync(process.execPath, ['--import', 'tsx', 'search.mjs'], { cwd: app, encoding: 'utf8', timeout: 60_000 });
      expect(out.split('\n')[0]).toMatch(/^\d+\.\d{3} notes\.md Why the river floods$/);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, 90_000);

  it('runs the CLI block (after `dossier serve`) against the same server', () => {
    const [block] = blocksOf('The command-line client', 'sh');
    const credentials = bootstrapCredentials(join(work, 'data'));
    const lines = block!.split('\n').filter((line) => line.trim() && !line.includes('dossier serve'));
    const script = lines
      .map((line) => line.replace(/\s+#.*$/, ''))
      .join('\n')
      .replaceAll('npx -y pnpm@10 dossier', `node ${join(root, 'packages/cli/bin/dossier.mjs')}`)
      .replace('dsk_live_...', credentials.live_api_key!)
      .replace('http://127.0.0.1:8080/v1', `${server.url}/v1`)
      .replace('<project-id>', credentials.project_id!);
    const cli = join(work, 'cli');
    mkdirSync(join(cli, 'papers'), { recursive: true });
    writeFileSync(join(cli, 'papers', 'battery.md'), '# Batteries\n\n## What causes X\n\nHeat causes X in most cells, and cold slows it down.\n');
    const env = { ...process.env, XDG_CONFIG_HOME: join(cli, 'config'), NO_COLOR: '1' };
    const out = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: cli, env, encoding: 'utf8', timeout: 120_000 });
    expect(out).toContain('battery.md');
    expect(out).toMatch(/Heat causes X/);
  }, 150_000);
});

describe('docs/webhooks.md, run as written', () => {
  it('verifies a signature the server makes with its node:crypto snippet, keyed with the secret as text (not hex-decoded)', async () => {
    const [snippet] = blocksOf('Headers and signature', 'js', readFileSync(join(root, 'docs', 'webhooks.md'), 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'dossier-webhook-verify-'));
    try {
      writeFileSync(join(dir, 'verify.mjs'), snippet!);
      const { verify } = (await import(pathToFileURL(join(dir, 'verify.mjs')).href)) as { verify(raw: Buffer, signature: string, secret: string): boolean };
      const secret = 'a'.repeat(32) + 'b'.repeat(32);
      const body = Buffer.from('{"id":"d1","type":"document.ready","created":1764000000,"data":{"documentId":"x"}}');
      expect(verify(body, signBody(secret, body), secret)).toBe(true);
      expect(verify(body, signBody(Buffer.from(secret, 'hex').toString('latin1'), body), secret)).toBe(false);
      expect(verify(Buffer.concat([body, Buffer.from(' ')]), signBody(secret, body), secret)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
