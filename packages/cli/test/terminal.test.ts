import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSI, dossier, dossierTty, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let dir: string;
const cleanups: (() => void)[] = [];

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI sequences are what these tests look for
const SGR = /\x1b\[[0-9;]*m/; // colour and bold
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const CURSOR_UP = /\x1b\[\d+A/; // the live display moving back up to redraw
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const ONE_LINE_PER_FILE = /\x1b\[2K.*one\.md.*\r?\n\x1b\[2K.*two\.md/; // each line cleared and redrawn

beforeAll(async () => {
  t = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'dossier-cli-tty-'));
  writeFileSync(join(dir, 'one.md'), '# One\n\n## First\n\nThe first file.\n');
  writeFileSync(join(dir, 'two.md'), '# Two\n\n## Second\n\nThe second file.\n');
});
afterAll(async () => {
  for (const c of cleanups) c();
  rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

function user(extra: Record<string, string> = {}) {
  const h = tempHome();
  cleanups.push(h.cleanup);
  return { home: h.home, env: { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey, ...extra } };
}

describe.concurrent('with and without a terminal', () => {
  it('upload --watch on a terminal redraws a live display, one line per file, then prints a coloured table', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Live' });
    const r = await dossierTty(u.home, ['upload', join(dir, 'one.md'), join(dir, 'two.md'), '--watch', '-c', col.id], { env: u.env });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('\x1b[?25l'); // cursor hidden while drawing…
    expect(r.stdout).toContain('\x1b[?25h'); // …and shown again
    expect(r.stdout).toMatch(CURSOR_UP);
    expect(r.stdout).toMatch(ONE_LINE_PER_FILE);
    expect(r.stdout).toContain('\x1b[32mready\x1b[39m'); // the result table, coloured
    expect((await t.request('GET', `/v1/collections/${col.id}/documents?status=ready`)).body.total).toBe(2);
  });

  it('upload --watch piped prints plain progress lines on stderr, a table on stdout, and no escape codes', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Plain' });
    const r = await dossier(u.home, ['upload', join(dir, 'one.md'), join(dir, 'two.md'), '--watch', '-c', col.id], { env: u.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stderr).not.toMatch(ANSI);
    expect(r.stderr).toContain(`${join(dir, 'one.md')}: sending\n`);
    expect(r.stderr).toMatch(new RegExp(`${join(dir, 'two.md').replace(/[.]/g, '\\.')}: ready \\(2 sections, \\d+ chunks?\\)\\n`));
    expect(r.stdout).toMatch(/^FILE +DOCUMENT +STATUS +SECTIONS +CHUNKS +NOTE\n/);
    expect(r.stdout.match(/ ready /g)).toHaveLength(2);
  });

  it('upload --wait blocks silently, even on a terminal', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Silent' });
    const r = await dossierTty(u.home, ['upload', join(dir, 'one.md'), '--wait', '-c', col.id], { env: u.env });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).not.toContain('\x1b[?25l');
    expect(r.stdout).not.toMatch(CURSOR_UP);
    expect(r.stdout).not.toContain('sending');
    expect(r.stdout).toMatch(/one\.md .*ready/);
  });

  it('colours only on a terminal: NO_COLOR, --no-color and config color=never turn it off; --color always forces it', async () => {
    const u = user();
    await t.createCollection({ name: 'Colours' });
    const tty = await dossierTty(u.home, ['collections', 'list'], { env: u.env });
    expect(tty.stdout).toMatch(SGR);
    const piped = await dossier(u.home, ['collections', 'list'], { env: u.env });
    expect(piped.stdout).toContain('Colours');
    expect(piped.stdout).not.toMatch(ANSI);
    expect((await dossierTty(u.home, ['collections', 'list'], { env: { ...u.env, NO_COLOR: '1' } })).stdout).not.toMatch(SGR);
    expect((await dossierTty(u.home, ['collections', 'list', '--no-color'], { env: u.env })).stdout).not.toMatch(SGR);
    expect((await dossier(u.home, ['collections', 'list', '--color', 'always'], { env: { ...u.env, NO_COLOR: '1' } })).stdout).toMatch(SGR);
    await dossier(u.home, ['config', 'set', 'color', 'never']);
    expect((await dossierTty(u.home, ['doctor'], { env: u.env })).stdout).not.toMatch(SGR);
  });
});
