import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';

/** The server package, loaded only by `serve` so the client commands start fast (and the single-file build can leave it out). */
async function loadServer() {
  try {
    return await import('@dossier/server');
  } catch (err) {
    throw new CliError(
      `\`dossier serve\` is not available in this build (${(err as Error).message.split('\n')[0]})`,
      EXIT.failure,
      'the single-file executable is the client only; run the server from a checkout with `npx pnpm@10 start` or `npx pnpm@10 dossier serve`',
    );
  }
}

/** A failure to listen (the port taken, or not allowed) as an error that says what to do, not as a bug. */
function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') {
    return new CliError(
      `cannot listen on ${host}:${port}: the port is already in use`,
      EXIT.failure,
      'another server (perhaps another `dossier serve`) is listening there: stop it, or pick a free port with --port <n> (or DOSSIER_PORT)',
      { cause: err },
    );
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return new CliError(
      `cannot listen on ${host}:${port}: ${code === 'EACCES' ? 'permission denied' : 'no such address on this machine'}`,
      EXIT.failure,
      code === 'EACCES' ? 'ports below 1024 need privileges: pick another with --port <n>' : 'check --host (or DOSSIER_HOST): 127.0.0.1 or 0.0.0.0 always work',
      { cause: err },
    );
  }
  return err;
}

/** The first-start banner: the credentials (shown once) and the lines that point this CLI at the new server. */
function banner(url: string, dataDir: string, admin: string, b: { projectId: string; liveKey: string; testKey: string }): string {
  return [
    '',
    `Dossier is ready at ${url}`,
    `First start: these credentials are shown once (also saved to ${dataDir}/bootstrap-credentials.txt, mode 0600)`,
    `  admin:     ${admin}`,
    `  project:   ${b.projectId}`,
    `  live key:  ${b.liveKey}`,
    `  test key:  ${b.testKey}`,
    '',
    'Point the CLI at it (in another terminal):',
    `  export SERVICE_BASE_URL=${url}/v1`,
    `  export SERVICE_API_KEY=${b.liveKey}`,
    `  dossier config set project_id ${b.projectId}`,
    '  dossier doctor',
    '',
  ].join('\n');
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the Dossier server in this process (the embedded default: SQLite, LanceDB, files)',
  usage: ['serve [--role api|worker|all] [--port n] [--host addr] [--data-dir dir] [server flags…]'],
  description:
    "Takes the server's own flags and DOSSIER_* environment variables (docs/configuration.md lists\n" +
    'them all: --port, --host, --data-dir, --embedding-model, --workers, --log-level, …). The first start creates an\n' +
    'admin account, a project and its API keys and prints them once. Logs are JSON lines on stderr. Ctrl-C stops it.\n' +
    '--role api serves the API without running pipeline jobs; --role worker runs jobs and serves only /health (both need\n' +
    'a shared store and DOSSIER_REDIS_URL; see docs/several-machines.md).',
  rawArgs: true,
  examples: [
    'dossier serve',
    'dossier serve --role worker --port 0',
    'dossier serve --port 9000 --data-dir ~/dossier-data',
    'DOSSIER_EMBEDDING_MODEL=none dossier serve --log-level warn',
  ],
  async run(ctx) {
    const { bannerAdminLine, loadConfig, createLogger, startServer } = await loadServer();
    let config: ReturnType<typeof loadConfig>;
    try {
      config = loadConfig(ctx.argv, ctx.env);
    } catch (err) {
      throw usageError((err as Error).message, 'run `dossier serve --help`; every flag is in docs/configuration.md');
    }
    const server = await startServer(config, { log: createLogger(config.logLevel) }).catch((err: unknown) => {
      throw listenError(err, config.host, config.port);
    });
    if (server.bootstrap) ctx.out.write(banner(server.url, server.dataDir, bannerAdminLine(config, server.bootstrap), server.bootstrap));
    else if (server.role === 'worker') ctx.out.info(`Dossier worker running pipeline jobs; health at ${server.url}/health (Ctrl-C stops it)`);
    else {
      ctx.out.info(`Dossier is listening at ${server.url}/v1 (Ctrl-C stops it)`);
      // The banner shows the keys only on the first start; if that start never got to print it (say, its port
      // was taken after the account was made), the file is the only place left to find them.
      const credentials = join(server.dataDir, 'bootstrap-credentials.txt');
      if (existsSync(credentials)) ctx.out.info(`the API keys and project id made on the first start are in ${credentials}`);
    }
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      process.once('SIGTERM', () => resolve());
    });
    await server.close();
    return EXIT.ok;
  },
};
