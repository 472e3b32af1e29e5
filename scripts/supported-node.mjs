#!/usr/bin/env node
// Runs a command on a supported Node (issue 41): the machine's own Node when it is 22.16 or later (node:sqlite is
// built in), else Node 24 from the npm registry (the `node` package `npx node@24` installs: fetched once, then
// cached), put first on PATH so that every `node` the command starts, and every script whose shebang is
// `#!/usr/bin/env node` (vitest, tsc, tsx), runs on it. The install itself (`pnpm install`) stays on the machine's
// Node. DOSSIER_NODE_FALLBACK=<major> picks another major; DOSSIER_NODE_FALLBACK=off runs on the machine's Node.
//
//   node scripts/supported-node.mjs <command> [args...]
import { spawn, spawnSync } from 'node:child_process';
import { delimiter, dirname } from 'node:path';

/** The oldest Node whose built-in node:sqlite has what the store needs (packages/adapters/src/sqlite/node-sqlite.ts). */
const OLDEST_SUPPORTED = [22, 16];
const FALLBACK_MAJOR = process.env.DOSSIER_NODE_FALLBACK ?? '24';

function isSupported(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return major > OLDEST_SUPPORTED[0] || (major === OLDEST_SUPPORTED[0] && minor >= OLDEST_SUPPORTED[1]);
}

/** The directory of a Node `major` binary from the npm registry, or the reason it could not be had. */
function fetchedNodeDir(major) {
  const result = spawnSync('npx', ['-y', `node@${major}`, '-p', 'process.execPath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const execPath = result.stdout?.trim();
  if (result.status !== 0 || !execPath) throw new Error(`could not fetch Node ${major} with npx (exit ${result.status}); set DOSSIER_NODE_FALLBACK=off to run on Node ${process.version}`);
  return dirname(execPath);
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node scripts/supported-node.mjs <command> [args...]');
  process.exit(2);
}
const env = { ...process.env };
if (!isSupported(process.version) && FALLBACK_MAJOR !== 'off') {
  const nodeDir = fetchedNodeDir(FALLBACK_MAJOR);
  env.PATH = `${nodeDir}${delimiter}${env.PATH ?? ''}`;
  // The Node the machine has: the consumer test also installs the packed packages on it (Node 20 keeps better-sqlite3).
  env.DOSSIER_MACHINE_NODE = process.execPath;
  console.error(`Node ${process.version} is older than ${OLDEST_SUPPORTED.join('.')}: running "${command}" on Node ${FALLBACK_MAJOR} from the npm registry (${nodeDir})`);
}
const child = spawn(command, args, { env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
child.on('error', (err) => {
  console.error(err.message);
  process.exit(1);
});
