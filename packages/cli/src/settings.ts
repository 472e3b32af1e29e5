import { type ConfigFile, loadConfigFile } from './config-file.ts';
import { CliError, usageError } from './errors.ts';

/** Where a setting's value came from: precedence is flag, then environment, then config file, then default. */
export type Source = 'flag' | 'env' | 'config' | 'default';

/** A resolved setting and its origin (doctor shows the origin). */
export interface Setting<T> {
  value: T;
  source: Source | null;
}

export type ColorMode = 'auto' | 'always' | 'never';

/** Everything the commands need from flags, environment and config file, resolved once. */
export interface Settings {
  /** The API address as given (before normalising), and its normalised form ending in /v1, or why it is bad. */
  baseUrl: Setting<string> & { normalized: string | null; error: string | null };
  apiKey: Setting<string | null>;
  projectId: Setting<string | null>;
  /** Machine-readable output (--json or `output: json`). */
  json: boolean;
  color: ColorMode;
  /** config.json's default_collection. */
  defaultCollection: string | null;
  /** Why config.json could not be used, when it could not (commands other than config and doctor stop on it). */
  configError: CliError | null;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/v1';

/** The global flags as parsed (every command accepts them). */
export interface GlobalFlags {
  'api-key'?: string;
  'base-url'?: string;
  project?: string;
  json?: boolean;
  output?: string;
  color?: string;
  'no-color'?: boolean;
}

/** `http://host:8080`, `…/`, `…/v1/` and `…/v1` all become `…/v1`, the spec's base_url. */
export function normalizeBaseUrl(raw: string): { url: string | null; error: string | null } {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { url: null, error: `'${raw}' is not a URL` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { url: null, error: `'${raw}' must start with http:// or https://` };
  if (u.search || u.hash) return { url: null, error: `'${raw}' must not have a query string or fragment` };
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path.endsWith('/v1') ? path : `${path}/v1`;
  return { url: u.toString().replace(/\/+$/, ''), error: null };
}

/** The first defined, non-empty value with its source. */
function pick<T>(...candidates: [T | undefined | null | '', Source][]): Setting<T | null> {
  for (const [v, source] of candidates) if (v !== undefined && v !== null && v !== '') return { value: v as T, source };
  return { value: null, source: null };
}

function colorMode(flags: GlobalFlags, env: NodeJS.ProcessEnv, config: ConfigFile): ColorMode {
  if (flags['no-color']) return 'never';
  if (flags.color !== undefined) {
    if (!['auto', 'always', 'never'].includes(flags.color)) throw usageError(`--color must be auto, always or never, not '${flags.color}'`);
    return flags.color as ColorMode;
  }
  if (env.NO_COLOR) return 'never'; // https://no-color.org: any non-empty value
  return (config.color as ColorMode | undefined) ?? 'auto';
}

function outputJson(flags: GlobalFlags, config: ConfigFile): boolean {
  if (flags.json) return true;
  if (flags.output !== undefined) {
    if (flags.output !== 'human' && flags.output !== 'json') throw usageError(`--output must be human or json, not '${flags.output}'`);
    return flags.output === 'json';
  }
  return config.output === 'json';
}

/** Resolve every setting: flags win over the environment, which wins over config.json, which wins over defaults. */
export function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv): Settings {
  let config: ConfigFile = {};
  let configError: CliError | null = null;
  try {
    config = loadConfigFile(env);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    configError = err;
  }
  const base = pick<string>([flags['base-url'], 'flag'], [env.SERVICE_BASE_URL, 'env'], [config.base_url, 'config'], [DEFAULT_BASE_URL, 'default']);
  const { url, error } = normalizeBaseUrl(base.value ?? DEFAULT_BASE_URL);
  return {
    baseUrl: { value: base.value ?? DEFAULT_BASE_URL, source: base.source, normalized: url, error },
    apiKey: pick<string>([flags['api-key'], 'flag'], [env.SERVICE_API_KEY, 'env']),
    projectId: pick<string>([flags.project, 'flag'], [env.SERVICE_PROJECT_ID, 'env'], [config.project_id, 'config']),
    json: outputJson(flags, config),
    color: colorMode(flags, env, config),
    defaultCollection: config.default_collection ?? null,
    configError,
  };
}
