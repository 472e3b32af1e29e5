import { lookup } from 'node:dns/promises';
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { connect } from 'node:tls';
import type { Command, Context } from '../command.ts';
import { ApiClient } from '../client.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { configPath } from '../files.ts';
import { TELEMETRY_STATEMENT } from '../telemetry.ts';

/** The outcome of one check. */
interface Check {
  name: string;
  status: 'pass' | 'fail' | 'skip';
  detail: string;
  hint?: string;
}

const pass = (name: string, detail: string): Check => ({ name, status: 'pass', detail });
const fail = (name: string, detail: string, hint: string): Check => ({ name, status: 'fail', detail, hint });
const skip = (name: string, detail: string): Check => ({ name, status: 'skip', detail });

const SOURCE_NAMES = { flag: 'a flag', env: 'the environment', config: 'config.json', default: 'the default' } as const;

function configCheck(ctx: Context): Check {
  const e = ctx.settings.configError;
  if (e) return fail('config file', e.message, e.hint ?? 'fix the file or run `dossier config reset`');
  const path = configPath(ctx.env);
  // Nothing to check in a file that does not exist yet: defaults apply (issue 12: it was ticked anyway).
  if (!existsSync(path)) return skip('config file', `${path} does not exist yet; defaults apply (\`dossier config set\` creates it)`);
  return pass('config file', path);
}

function keyCheck(ctx: Context): Check {
  const { value, source } = ctx.settings.apiKey;
  if (!value)
    return fail(
      'API key',
      'not set',
      'export SERVICE_API_KEY=dsk_live_… or pass --api-key; the server prints its keys on first start and saves them in <data-dir>/bootstrap-credentials.txt',
    );
  const env = /^dsk_(live|test)_/.exec(value)?.[1];
  const from = source === 'flag' ? '--api-key' : 'SERVICE_API_KEY';
  return pass('API key', `set by ${from}${env ? ` (a ${env} key)` : ' (not shaped like a Dossier key: dsk_live_… or dsk_test_…)'}`);
}

function urlCheck(ctx: Context): Check {
  const b = ctx.settings.baseUrl;
  const from = SOURCE_NAMES[b.source ?? 'default'];
  if (!b.normalized)
    return fail('base URL', `${b.error} (from ${from})`, 'set SERVICE_BASE_URL or --base-url to the API address, e.g. http://127.0.0.1:8080/v1');
  return pass('base URL', `${b.normalized} (from ${from})`);
}

async function dnsCheck(host: string): Promise<Check> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return pass('DNS', `${bare} is an IP address; nothing to resolve`);
  try {
    const { address } = await lookup(bare);
    return pass('DNS', `${bare} resolves to ${address}`);
  } catch (err) {
    return fail(
      'DNS',
      `${bare} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      'check the host name in SERVICE_BASE_URL, and your network or VPN',
    );
  }
}

function tlsCheck(url: URL): Promise<Check> {
  if (url.protocol !== 'https:') return Promise.resolve(skip('TLS', 'not used: plain http (fine on this machine or a private network)'));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(url.port || 443), servername: isIP(host) ? undefined : host, timeout: 5000 }, () => {
      const cert = socket.getPeerCertificate();
      resolve(pass('TLS', `${socket.getProtocol()} handshake with ${host}${cert?.valid_to ? `, certificate valid until ${cert.valid_to}` : ''}`));
      socket.end();
    });
    const failed = (why: string) => {
      resolve(
        fail(
          'TLS',
          `handshake with ${host} failed: ${why}`,
          'check the certificate (expired? self-signed? wrong host name?) or use the http:// address if the server has no TLS',
        ),
      );
      socket.destroy();
    };
    socket.on('error', (err) => failed(err.message));
    socket.on('timeout', () => failed('no answer within 5 s'));
  });
}

async function apiCheck(ctx: Context, base: string): Promise<Check> {
  const name = 'API';
  if (!ctx.settings.apiKey.value) return skip(name, 'GET /v1/collections not tried: no API key');
  const started = Date.now();
  try {
    const cols = await new ApiClient(base, ctx.settings.apiKey.value).json<unknown[]>('GET', '/collections', { timeoutMs: 10_000 });
    return pass(name, `GET /v1/collections answered in ${Date.now() - started} ms (${cols.length} collection${cols.length === 1 ? '' : 's'})`);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return fail(name, `GET /v1/collections: ${err.message}`, err.hint ?? 'run the server with `dossier serve`');
  }
}

async function checks(ctx: Context): Promise<Check[]> {
  const list = [configCheck(ctx), keyCheck(ctx), urlCheck(ctx)];
  const base = ctx.settings.baseUrl.normalized;
  if (base) {
    const url = new URL(base);
    const dns = await dnsCheck(url.hostname);
    list.push(dns);
    if (dns.status === 'pass') list.push(await tlsCheck(url), await apiCheck(ctx, base));
    else list.push(skip('TLS', 'not tried: DNS failed'), skip('API', 'not tried: DNS failed'));
  } else {
    list.push(skip('DNS', 'not tried: no valid base URL'), skip('TLS', 'not tried: no valid base URL'), skip('API', 'not tried: no valid base URL'));
  }
  list.push(pass('telemetry', TELEMETRY_STATEMENT));
  return list;
}

function print(ctx: Context, list: Check[]): void {
  const s = ctx.out.out;
  const mark = { pass: s.green('✓'), fail: s.red('✗'), skip: s.dim('-') };
  const width = Math.max(...list.map((c) => c.name.length));
  for (const c of list) {
    ctx.out.line(`${mark[c.status]} ${c.name.padEnd(width)}  ${c.detail}`);
    if (c.hint) ctx.out.line(`  ${' '.repeat(width)}  ${s.yellow('→')} ${c.hint}`);
  }
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'Check the setup: API key, base URL, DNS, TLS, a live API call, telemetry',
  usage: ['doctor'],
  description:
    'Prints ✓ or ✗ per check, with a hint under each failed one; - marks a check that does not apply.\n' +
    'Exit 0 when every check passes, 1 otherwise. With --json: {ok, checks: [{name, status, detail, hint?}]}.',
  examples: ['dossier doctor', 'SERVICE_BASE_URL=https://dossier.example.com dossier doctor --json'],
  async run(ctx) {
    const list = await checks(ctx);
    const ok = list.every((c) => c.status !== 'fail');
    if (ctx.out.json) ctx.out.value({ ok, checks: list });
    else print(ctx, list);
    return ok ? EXIT.ok : EXIT.failure;
  },
};
