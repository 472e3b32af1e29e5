#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { bannerAdminLine, startServer } from './server.ts';

/** `pnpm start`: serve the API on the embedded default, print first-start credentials once, stop cleanly on signals. */
async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2));
  const log = createLogger(config.logLevel);
  const server = await startServer(config, { log });
  const b = server.bootstrap;
  if (b) {
    process.stdout.write(
      `\nDossier is ready at ${server.url}\nFirst start: these credentials are shown once (also saved to ${server.dataDir}/bootstrap-credentials.txt, mode 0600)\n` +
        `  admin:     ${bannerAdminLine(config, b)}\n  project:   ${b.projectId}\n  live key:  ${b.liveKey}\n  test key:  ${b.testKey}\n\n`,
    );
  } else if (server.role !== 'worker') process.stdout.write(restartNotice(server.url, server.dataDir));
  if (server.role !== 'worker') process.stdout.write(`Dashboard: ${server.url}/ (sign in with the admin account's e-mail and password)\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** What a restart prints: where the API is, and where the first start left the keys (they are never printed again). */
function restartNotice(url: string, dataDir: string): string {
  const file = join(dataDir, 'bootstrap-credentials.txt');
  const where = existsSync(file)
    ? `the admin account, project id and API keys made on the first start are in ${file}`
    : `the first start's credentials file is gone (${file}); sign in as the admin and create keys: dossier keys create`;
  return `\nDossier is ready at ${url}\n${where}\n\n`;
}

main().catch((err) => {
  process.stderr.write(`dossier: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
