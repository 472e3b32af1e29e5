import { readJsonFile, statePath, writeJsonFile } from './files.ts';

/**
 * state.json: what the CLI remembers between runs. The last-used collection is kept per API address, so a
 * collection of one server is never sent to another.
 */
interface State {
  lastCollection?: Record<string, string>;
}

function load(env: NodeJS.ProcessEnv): State {
  try {
    return readJsonFile(statePath(env), 'state file') as State;
  } catch {
    return {}; // state is a cache: a damaged file is forgotten, not fatal
  }
}

/** The collection last used against this API address, if any. */
export function lastCollection(env: NodeJS.ProcessEnv, baseUrl: string): string | undefined {
  const v = load(env).lastCollection?.[baseUrl];
  return typeof v === 'string' ? v : undefined;
}

/** Remember (or, with null, forget) the collection last used against this API address. */
export function rememberCollection(env: NodeJS.ProcessEnv, baseUrl: string, id: string | null): void {
  const state = load(env);
  const map = { ...(typeof state.lastCollection === 'object' ? state.lastCollection : {}) };
  if (id === null) delete map[baseUrl];
  else map[baseUrl] = id;
  writeJsonFile(statePath(env), { ...state, lastCollection: map });
}
