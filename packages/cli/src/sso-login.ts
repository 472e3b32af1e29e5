import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from './command.ts';
import { CliError, usageError } from './errors.ts';
import { EXIT } from './exit-codes.ts';

/**
 * `dossier login --sso <provider>` (issue 42): single sign-on through the browser, back to this process. The CLI
 * listens on a loopback port, sends the browser to the server's start URL for the provider with `then=cli`, that
 * port and the S256 challenge of a verifier it keeps; after the provider signs the person in, the server redirects
 * the browser to the loopback with a one-time code (valid two minutes), which the CLI redeems with the verifier at
 * POST /v1/auth/sso/token for a session token, like a password login. No token ever travels in a URL.
 */

/** How long the CLI waits for the browser (the server's own attempt lasts ten minutes). */
const WAIT_MS = 10 * 60_000;

interface Providers {
  passwordSignIn: boolean;
  providers: { id: string; name: string; startUrl: string }[];
}

/** What reached the loopback: the code, or the server's refusal. */
type Arrival = { code: string } | { error: string };

const PAGE = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Listen on 127.0.0.1 for the one redirect to /callback; `arrived` settles with it. */
async function loopback(): Promise<{ server: Server; port: number; arrived: Promise<Arrival> }> {
  let settle: (arrival: Arrival) => void = () => {};
  const arrived = new Promise<Arrival>((resolve) => {
    settle = resolve;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    if (req.method !== 'GET' || url.pathname !== '/callback' || (!code && !error)) return void res.writeHead(404).end();
    res.writeHead(code ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(code ? PAGE('Signed in', 'You can close this tab and return to the terminal.') : PAGE('Single sign-on failed', escapeHtml(error ?? '')));
    settle(code ? { code } : { error: error ?? 'refused' });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, arrived };
}

/** Open a URL in the desktop's browser; nothing happens (the URL is printed anyway) where there is none. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No opener: the printed URL is the way.
  }
}

/** The start URL of the provider, or a usage error naming the providers the server offers. */
async function startUrlOf(ctx: Context, providerId: string): Promise<URL> {
  const choices = await ctx.api({ keyRequired: false }).json<Providers>('GET', '/auth/sso/providers', { auth: false });
  const provider = choices.providers.find((p) => p.id === providerId);
  if (!provider) {
    const offered = choices.providers.map((p) => p.id).join(', ');
    throw usageError(
      `no identity provider '${providerId}' on this server`,
      offered ? `the server offers: ${offered}` : 'the server has no single sign-on (DOSSIER_OIDC_PROVIDERS)',
    );
  }
  return new URL(provider.startUrl);
}

/** Wait for the browser's redirect, Ctrl-C or the time limit. */
function waitForArrival(ctx: Context, arrived: Promise<Arrival>): Promise<Arrival> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CliError('single sign-on did not finish within 10 minutes', EXIT.failure, 'run dossier login --sso again')), WAIT_MS);
    onAbort = () => reject(new CliError('cancelled', EXIT.interrupted));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([arrived, stop]).finally(() => {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  });
}

/** Sign in with the provider through the browser; the session token and the account's e-mail. */
export async function ssoLogIn(ctx: Context, providerId: string, opts: { openBrowser: boolean }): Promise<{ token: string; email: string }> {
  const start = await startUrlOf(ctx, providerId);
  const verifier = randomBytes(32).toString('base64url');
  const { server, port, arrived } = await loopback();
  try {
    start.search = new URLSearchParams([
      ['then', 'cli'],
      ['port', String(port)],
      ['challenge', createHash('sha256').update(verifier).digest('base64url')],
    ]).toString();
    ctx.out.streams.stderr.write(`Open this address to sign in with ${providerId} (waiting on 127.0.0.1:${port}):\n${start.href}\n`);
    if (opts.openBrowser) openBrowser(start.href);
    const arrival = await waitForArrival(ctx, arrived);
    if ('error' in arrival) throw new CliError(`single sign-on failed: ${arrival.error}`, EXIT.auth);
    const res = await ctx
      .api({ keyRequired: false })
      .send('POST', '/auth/sso/token', { json: { code: arrival.code, verifier }, auth: false, allow: [401, 404] });
    const body = (await res.json()) as { token?: string; user?: { email: string }; error?: string };
    if (!res.ok || !body.token || !body.user)
      throw new CliError(`single sign-on failed: ${body.error ?? `HTTP ${res.status}`}`, EXIT.auth, 'run dossier login --sso again');
    return { token: body.token, email: body.user.email };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
