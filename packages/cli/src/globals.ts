import type { OptionSpecs } from './command.ts';

/** Flags every command accepts. */
export const GLOBAL_OPTIONS: OptionSpecs = {
  collection: { type: 'string', short: 'c' },
  json: { type: 'boolean' },
  output: { type: 'string' },
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  project: { type: 'string' },
  color: { type: 'string' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export const GLOBAL_HELP: [string, string][] = [
  ['-c, --collection <id|name>', 'collection to act on; remembered, so later commands can omit it'],
  ['--json', 'machine-readable output: one JSON document, or NDJSON (one object per line) for streams'],
  ['--output <human|json>', 'the same choice as a value (overrides config.json `output`)'],
  ['--api-key <key>', 'project API key (default: $SERVICE_API_KEY)'],
  ['--base-url <url>', 'API address, with or without /v1 (default: $SERVICE_BASE_URL, config base_url, http://127.0.0.1:8080/v1)'],
  ['--project <id>', 'project id for `collections create` and `provider-keys` (default: $SERVICE_PROJECT_ID, config project_id)'],
  ['--color <auto|always|never>', 'colour; auto means only on a terminal (--no-color = never)'],
  ['-h, --help', 'help for the command'],
];

export const ENV_HELP: [string, string][] = [
  ['SERVICE_API_KEY', 'project API key (dsk_live_… or dsk_test_…); --api-key wins over it'],
  ['SERVICE_BASE_URL', 'API address (default http://127.0.0.1:8080/v1; /v1 is added when missing)'],
  ['SERVICE_PROJECT_ID', 'project id used by `collections create` and `provider-keys`'],
  ['SERVICE_TELEMETRY', 'accepted for compatibility: the CLI sends no telemetry, so there is nothing to opt out of'],
  ['NO_COLOR', 'any non-empty value turns colour off (--color always still forces it)'],
  ['XDG_CONFIG_HOME, HOME', 'config.json and state.json live in $XDG_CONFIG_HOME/dossier, else ~/.config/dossier'],
];

/** Global flags that take a value (to find the command name among leading flags). */
export const GLOBAL_VALUE_FLAGS = new Set(['-c', '--collection', '--output', '--api-key', '--base-url', '--project', '--color']);
