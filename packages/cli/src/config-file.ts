import { CliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { configPath, readJsonFile, writeJsonFile } from './files.ts';

/** The settings a user may keep in config.json, with what each means and which values it takes. */
export const CONFIG_KEYS = {
  default_collection: { help: 'collection (id or name) used when neither -c nor a last-used collection applies', values: null },
  output: { help: 'human (tables, the default) or json (as if --json were given)', values: ['human', 'json'] },
  color: { help: 'auto (colour on a terminal, the default), always or never', values: ['auto', 'always', 'never'] },
  base_url: { help: 'address of the API, e.g. https://dossier.example.com/v1 (SERVICE_BASE_URL wins over it)', values: null },
  project_id: { help: 'project id used by `collections create` and `provider-keys` (SERVICE_PROJECT_ID wins over it)', values: null },
} as const satisfies Record<string, { help: string; values: readonly string[] | null }>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/** The config file's contents, checked. */
export type ConfigFile = Partial<Record<ConfigKey, string>>;

export const isConfigKey = (k: string): k is ConfigKey => Object.hasOwn(CONFIG_KEYS, k);

/** Why a value is not acceptable for a key, or null when it is. */
export function checkConfigValue(key: ConfigKey, value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return 'expected a non-empty string';
  const allowed: readonly string[] | null = CONFIG_KEYS[key].values;
  if (allowed && !allowed.includes(value)) return `expected one of ${allowed.join(', ')}`;
  if (key === 'base_url' && !/^https?:\/\/[^\s/]+/i.test(value)) return 'expected an http(s) URL';
  return null;
}

/** Read and check config.json; unknown keys and bad values are errors that name the file and the key. */
export function loadConfigFile(env: NodeJS.ProcessEnv): ConfigFile {
  const path = configPath(env);
  const raw = readJsonFile(path, 'config file');
  const out: ConfigFile = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!isConfigKey(k)) {
      throw new CliError(
        `unknown setting '${k}' in ${path}`,
        EXIT.failure,
        `known settings: ${Object.keys(CONFIG_KEYS).join(', ')}; remove it with \`dossier config reset ${k}\``,
      );
    }
    const why = checkConfigValue(k, v);
    if (why) throw new CliError(`bad value for '${k}' in ${path}: ${why}`, EXIT.failure, `fix it with \`dossier config set ${k} <value>\``);
    out[k] = v as string;
  }
  return out;
}

/** Replace config.json with these settings (an empty object deletes the file). */
export function saveConfigFile(env: NodeJS.ProcessEnv, config: Record<string, unknown>): void {
  writeJsonFile(configPath(env), Object.keys(config).length === 0 ? null : config);
}
