import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { CliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';

/**
 * `$XDG_CONFIG_HOME/dossier`, else `$HOME/.config/dossier`: where config.json (settings the user writes) and
 * state.json (what the CLI remembers, such as the last collection) live. Both variables are read from the
 * given environment so tests can point them at a temporary home.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'dossier');
  return join(env.HOME || homedir(), '.config', 'dossier');
}

export const configPath = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'config.json');
export const statePath = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'state.json');

/** A JSON object read from a file; `{}` when the file does not exist; a clear error when it is not an object. */
export function readJsonFile(path: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`cannot read the ${what} ${path}: ${(err as Error).message}`, EXIT.failure);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(`the ${what} ${path} is not a JSON object`, EXIT.failure, `fix it by hand, or delete it with \`dossier config reset\``);
  }
  return value as Record<string, unknown>;
}

/** Write a JSON object atomically (temp file and rename), creating the folder; `null` deletes the file. */
export function writeJsonFile(path: string, value: Record<string, unknown> | null): void {
  if (value === null) {
    rmSync(path, { force: true });
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}
