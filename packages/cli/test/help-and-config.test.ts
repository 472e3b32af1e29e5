import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODE_DOCS } from '../src/exit-codes.ts';
import { TELEMETRY_STATEMENT } from '../src/telemetry.ts';
import { dossier, ROOT, spawnDossier, TSX_CLI, tempHome } from './helpers.ts';

const homes: (() => void)[] = [];
const home = () => {
  const h = tempHome();
  homes.push(h.cleanup);
  return h.home;
};
afterAll(() => {
  for (const cleanup of homes) cleanup();
});

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe.concurrent('help that teaches', () => {
  it('lists every command with one line, the environment variables, the files and every exit code', async () => {
    const r = await dossier(home(), ['--help']);
    expect(r.code).toBe(0);
    for (const c of ['upload', 'query', 'scan', 'research', 'watch', 'doctor', 'collections', 'docs', 'provider-keys', 'config', 'serve']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${c} +\\S`, 'm'));
    }
    for (const v of ['SERVICE_API_KEY', 'SERVICE_BASE_URL', 'SERVICE_TELEMETRY', 'NO_COLOR', 'XDG_CONFIG_HOME']) expect(r.stdout).toContain(v);
    for (const [code] of EXIT_CODE_DOCS) expect(r.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
    expect(r.stdout).toContain("Dossier's CLI sends no telemetry");
    expect(r.stderr).toBe('');
  });

  it('gives each command a usage line, its flags and at least one example', async () => {
    const r = await dossier(home(), ['upload', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage:\n {2}dossier upload /);
    expect(r.stdout).toContain('--concurrency');
    expect(r.stdout).toMatch(/Examples:\n {2}dossier upload /);
    const research = await dossier(home(), ['help', 'research']);
    expect(research.stdout).toMatch(/--no-stream/);
  });

  it('exits 2 with a suggestion for an unknown command, and with help when run bare', async () => {
    const r = await dossier(home(), ['uplod']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'uplod'/);
    expect(r.stderr).toMatch(/did you mean `dossier upload`/);
    const bare = await dossier(home(), []);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('Usage: dossier <command>');
  });

  it('exits 2 for an unknown flag or a missing argument, pointing at the command help', async () => {
    const flag = await dossier(home(), ['query', 'x', '--bogus'], { env: { SERVICE_API_KEY: 'dsk_live_x' } });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--bogus/);
    expect(flag.stderr).toContain('dossier query --help');
    const noText = await dossier(home(), ['query'], { env: { SERVICE_API_KEY: 'dsk_live_x' } });
    expect(noText.code).toBe(2);
    expect(noText.stderr).toMatch(/missing the query text/);
  });

  it('exits 77 when a command needs a key and none is set, saying how to set one', async () => {
    for (const args of [
      ['upload', 'README.md'],
      ['collections', 'list'],
      ['research', 'why?', '-c', '00000000-0000-4000-8000-000000000000'],
    ]) {
      const r = await dossier(home(), args);
      expect(r.code, args.join(' ')).toBe(77);
      expect(r.stderr).toMatch(/needs an API key/);
      expect(r.stderr).toMatch(/SERVICE_API_KEY/);
      expect(r.stdout).toBe('');
    }
  });

  it('exits 2 when no collection is chosen, telling how to choose one', async () => {
    const r = await dossier(home(), ['query', 'revenue'], { env: { SERVICE_API_KEY: 'dsk_live_x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pass -c <collection-id> or run `dossier collections list`');
  });

  it('prints the version, also when run from the TypeScript source as the root `dossier` script does', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string };
    expect((await dossier(home(), ['--version'])).stdout.trim()).toBe(pkg.version);
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(root.scripts.dossier).toBe('node --import tsx packages/cli/src/main.ts');
    expect((await dossier(home(), ['--version'], { cli: TSX_CLI })).stdout.trim()).toBe(pkg.version);
  });
});

describe('serve', () => {
  it('starts the server in-process, prints the first-start credentials and how to point the CLI at it, and stops on Ctrl-C', async () => {
    const h = home();
    const dataDir = join(h, 'data');
    const server = await spawnDossier(h, ['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], {
      cli: TSX_CLI,
      env: { DOSSIER_EMBEDDING_MODEL: 'none', DOSSIER_ALLOW_MODEL_DOWNLOAD: 'false' },
    });
    const out = await server.until('stdout', /dossier doctor\n/);
    const key = /export SERVICE_API_KEY=(dsk_live_\S+)/.exec(out)?.[1];
    const base = /export SERVICE_BASE_URL=(\S+)/.exec(out)?.[1];
    expect(key).toBeDefined();
    expect(readFileSync(join(dataDir, 'bootstrap-credentials.txt'), 'utf8')).toContain(`live_api_key=${key}`);
    const doctor = await dossier(h, ['doctor', '--json'], { env: { SERVICE_API_KEY: key, SERVICE_BASE_URL: base } });
    expect(JSON.parse(doctor.stdout).ok).toBe(true);
    server.child.kill('SIGINT');
    expect(await server.exit()).toBe(0);
  });

  it('says the port is taken (exit 1, a hint, not "a bug"), and a later start tells where the first-start keys are', async () => {
    const h = home();
    const dataDir = join(h, 'data');
    const env = { DOSSIER_EMBEDDING_MODEL: 'none', DOSSIER_ALLOW_MODEL_DOWNLOAD: 'false' };
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const { port } = taken.address() as { port: number };
    try {
      const r = await dossier(h, ['serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'], { cli: TSX_CLI, env });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(r.stderr).toMatch(/hint: .*--port <n>/);
      expect(r.stderr).not.toMatch(/bug in dossier/);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
    // Whether or not the failed start got as far as making the account, the keys are not lost: either this start
    // prints the banner, or it names the file that holds them.
    const again = await spawnDossier(h, ['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { cli: TSX_CLI, env });
    const banner = again.until('stdout', /dossier doctor\n/);
    const pointer = again.until('stderr', /bootstrap-credentials\.txt\n/);
    for (const p of [banner, pointer]) p.catch(() => undefined); // the one that does not come rejects when the process ends
    const said = await Promise.any([banner, pointer]);
    expect(said).toContain(join(dataDir, 'bootstrap-credentials.txt'));
    again.child.kill('SIGINT');
    expect(await again.exit()).toBe(0);
  });
});

describe.concurrent('config get, set, reset and path', () => {
  it('writes ~/.config/dossier/config.json in HOME, reads it back, and resets it', async () => {
    const h = home();
    const file = join(h, '.config', 'dossier', 'config.json');
    expect((await dossier(h, ['config', 'path'])).stdout.trim()).toBe(file);
    expect(await dossier(h, ['config', 'set', 'output', 'json'])).toMatchObject({ code: 0 });
    expect(await dossier(h, ['config', 'set', 'default_collection', 'papers'])).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ output: 'json', default_collection: 'papers' });
    const one = await dossier(h, ['config', 'get', 'default_collection', '--output', 'human']);
    expect(one).toMatchObject({ code: 0, stdout: 'papers\n' });
    // output=json in the file makes every command speak JSON
    expect(JSON.parse((await dossier(h, ['config', 'get'])).stdout)).toEqual({ output: 'json', default_collection: 'papers' });
    expect(await dossier(h, ['config', 'reset', 'output'])).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ default_collection: 'papers' });
    expect(await dossier(h, ['config', 'get', 'output'])).toMatchObject({ code: 1, stdout: '' });
    expect(await dossier(h, ['config', 'reset'])).toMatchObject({ code: 0 });
    expect(existsSync(file)).toBe(false);
  });

  it('honours XDG_CONFIG_HOME and reports both files with --json', async () => {
    const h = home();
    const xdg = join(h, 'xdg');
    const r = await dossier(h, ['config', 'path', '--json'], { env: { XDG_CONFIG_HOME: xdg } });
    expect(JSON.parse(r.stdout)).toEqual({ config: join(xdg, 'dossier', 'config.json'), state: join(xdg, 'dossier', 'state.json') });
  });

  it('rejects unknown settings and bad values with exit 2, and a damaged file with a hint to reset it', async () => {
    const h = home();
    expect((await dossier(h, ['config', 'set', 'colour', 'never'])).code).toBe(2);
    const bad = await dossier(h, ['config', 'set', 'color', 'sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/auto, always, never/);
    mkdirSync(join(h, '.config', 'dossier'), { recursive: true });
    writeFileSync(join(h, '.config', 'dossier', 'config.json'), '{ not json');
    const broken = await dossier(h, ['collections', 'list'], { env: { SERVICE_API_KEY: 'dsk_live_x' } });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/config reset/);
    expect((await dossier(h, ['config', 'reset'])).code).toBe(0);
  });

  it('lets flags win over the environment, and the environment over config.json', async () => {
    const h = home();
    await dossier(h, ['config', 'set', 'base_url', 'http://config.invalid:1']);
    const fromConfig = JSON.parse((await dossier(h, ['doctor', '--json'])).stdout);
    expect(fromConfig.checks.find((c: { name: string }) => c.name === 'base URL').detail).toContain('http://config.invalid:1/v1 (from config.json)');
    const fromEnv = JSON.parse((await dossier(h, ['doctor', '--json'], { env: { SERVICE_BASE_URL: 'http://env.invalid:2' } })).stdout);
    expect(fromEnv.checks.find((c: { name: string }) => c.name === 'base URL').detail).toContain('http://env.invalid:2/v1 (from the environment)');
    const fromFlag = JSON.parse(
      (await dossier(h, ['doctor', '--json', '--base-url', 'http://flag.invalid:3/v1/'], { env: { SERVICE_BASE_URL: 'http://env.invalid:2' } })).stdout,
    );
    expect(fromFlag.checks.find((c: { name: string }) => c.name === 'base URL').detail).toContain('http://flag.invalid:3/v1 (from a flag)');
  });
});

describe.concurrent('doctor when something is wrong', () => {
  it('marks the missing key and the refused connection with ✗ and a hint each, and exits 1', async () => {
    const port = await closedPort();
    const r = await dossier(home(), ['doctor'], { env: { SERVICE_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^✗ API key +not set\n +→ export SERVICE_API_KEY/m);
    expect(r.stdout).toMatch(/^✓ base URL +http:\/\/127\.0\.0\.1:\d+\/v1/m);
    expect(r.stdout).toMatch(/^✓ telemetry +off: Dossier's CLI sends no telemetry/m);
    const withKey = await dossier(home(), ['doctor', '--json'], {
      env: { SERVICE_BASE_URL: `http://127.0.0.1:${port}`, SERVICE_API_KEY: 'dsk_live_abcdefghijklmnopqrstuvwxyz' },
    });
    expect(withKey.code).toBe(1);
    const report = JSON.parse(withKey.stdout);
    expect(report.ok).toBe(false);
    const api = report.checks.find((c: { name: string }) => c.name === 'API');
    expect(api).toMatchObject({ status: 'fail' });
    expect(api.detail).toMatch(/connection refused/);
    expect(api.hint).toMatch(/dossier serve/);
    expect(report.checks.find((c: { name: string }) => c.name === 'telemetry')).toEqual({ name: 'telemetry', status: 'pass', detail: TELEMETRY_STATEMENT });
  });

  it('fails the DNS check for a host that does not resolve, and a base URL that does not parse', async () => {
    const dns = JSON.parse((await dossier(home(), ['doctor', '--json'], { env: { SERVICE_BASE_URL: 'http://no-such-host.invalid' } })).stdout);
    expect(dns.checks.find((c: { name: string }) => c.name === 'DNS')).toMatchObject({ status: 'fail', hint: expect.stringMatching(/host name/) });
    const url = await dossier(home(), ['doctor'], { env: { SERVICE_BASE_URL: 'ftp:/nope' } });
    expect(url.code).toBe(1);
    expect(url.stdout).toMatch(/^✗ base URL/m);
  });

  it('exits 4 when the server cannot be reached, and says how to start one', async () => {
    const port = await closedPort();
    const r = await dossier(home(), ['collections', 'list'], { env: { SERVICE_BASE_URL: `http://127.0.0.1:${port}`, SERVICE_API_KEY: 'dsk_live_x' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/connection refused/);
    expect(r.stderr).toMatch(/dossier serve/);
  });
});

describe('the README', () => {
  it('documents exactly the exit codes of `dossier --help`', () => {
    const readme = readFileSync(join(ROOT, 'packages/cli/README.md'), 'utf8');
    const table = /<!-- exit-codes:start -->\n([\s\S]*?)\n<!-- exit-codes:end -->/.exec(readme)?.[1];
    expect(table).toBe(['| Code | Meaning |', '|---|---|', ...EXIT_CODE_DOCS.map(([c, m]) => `| ${c} | ${m} |`)].join('\n'));
  });

  it('says what telemetry collects and where it goes: nothing, nowhere', () => {
    const readme = readFileSync(join(ROOT, 'packages/cli/README.md'), 'utf8');
    expect(readme).toContain("Dossier's CLI sends no telemetry");
    expect(readme).toMatch(/collected: nothing/i);
    expect(readme).toMatch(/goes: nowhere|sent: nowhere/i);
  });
});
