import type { Command, Context } from '../command.ts';
import { CONFIG_KEYS, type ConfigKey, checkConfigValue, isConfigKey, loadConfigFile, saveConfigFile } from '../config-file.ts';
import { usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { configPath, readJsonFile, statePath } from '../files.ts';

function keyArg(ctx: Context, required: boolean): ConfigKey | undefined {
  const key = ctx.positionals[1];
  if (key === undefined) {
    if (required) throw usageError('missing the setting name', `settings: ${Object.keys(CONFIG_KEYS).join(', ')}`);
    return undefined;
  }
  if (!isConfigKey(key)) throw usageError(`unknown setting '${key}'`, `settings: ${Object.keys(CONFIG_KEYS).join(', ')}`);
  return key;
}

function get(ctx: Context): number {
  const key = keyArg(ctx, false);
  const config = loadConfigFile(ctx.env);
  if (key) {
    const value = config[key] ?? null;
    if (ctx.out.json) ctx.out.value({ key, value });
    else if (value !== null) ctx.out.line(value);
    return value === null ? EXIT.failure : EXIT.ok; // like `git config`: an unset key exits 1
  }
  if (ctx.out.json) ctx.out.value(config);
  else
    ctx.out.table(
      ['SETTING', 'VALUE', 'MEANING'],
      Object.entries(CONFIG_KEYS).map(([k, d]) => [k, config[k as ConfigKey] ?? ctx.out.out.dim('(unset)'), d.help]),
    );
  return EXIT.ok;
}

function set(ctx: Context): number {
  const key = keyArg(ctx, true)!;
  const value = ctx.positionals[2];
  if (value === undefined || ctx.positionals.length > 3)
    throw usageError('config set takes one setting and one value', `e.g. dossier config set ${key} ${CONFIG_KEYS[key].values?.[0] ?? '<value>'}`);
  const why = checkConfigValue(key, value);
  if (why) throw usageError(`bad value for ${key}: ${why}`);
  const path = configPath(ctx.env);
  const next = { ...readJsonFile(path, 'config file'), [key]: value };
  saveConfigFile(ctx.env, next);
  if (ctx.out.json) ctx.out.value(next);
  else ctx.out.info(`${key} = ${value} (saved in ${path})`);
  return EXIT.ok;
}

function reset(ctx: Context): number {
  const key = ctx.positionals[1]; // any name, so a setting the CLI does not know can be removed too
  const path = configPath(ctx.env);
  let next: Record<string, unknown> = {};
  if (key !== undefined) {
    next = readJsonFile(path, 'config file');
    delete next[key];
  }
  saveConfigFile(ctx.env, next);
  if (ctx.out.json) ctx.out.value(next);
  else ctx.out.info(key ? `${key} reset to its default` : `all settings reset to their defaults (${path} removed)`);
  return EXIT.ok;
}

function path(ctx: Context): number {
  if (ctx.out.json) ctx.out.value({ config: configPath(ctx.env), state: statePath(ctx.env) });
  else ctx.out.line(configPath(ctx.env));
  return EXIT.ok;
}

export const configCommand: Command = {
  name: 'config',
  summary: 'Show or change the settings in ~/.config/dossier/config.json',
  usage: ['config get [setting]', 'config set <setting> <value>', 'config reset [setting]', 'config path'],
  description:
    `Settings: ${Object.entries(CONFIG_KEYS)
      .map(([k, d]) => `${k} (${d.help})`)
      .join('; ')}.\n` + 'Flags win over the environment, which wins over this file. `get` of an unset setting prints nothing and exits 1.',
  subcommands: [
    ['get [setting]', 'print one setting, or all of them with what they mean'],
    ['set <setting> <value>', 'save a setting'],
    ['reset [setting]', 'remove one setting, or the whole file'],
    ['path', 'print where the config file is (with --json, the state file too)'],
  ],
  examples: [
    'dossier config set output json',
    'dossier config set base_url https://dossier.example.com/v1',
    'dossier config get color',
    'dossier config reset',
  ],
  async run(ctx) {
    const sub = ctx.positionals[0];
    if (sub === 'get') return get(ctx);
    if (sub === 'set') return set(ctx);
    if (sub === 'reset') return reset(ctx);
    if (sub === 'path') return path(ctx);
    throw usageError(sub ? `unknown subcommand 'config ${sub}'` : 'missing subcommand', 'use get, set, reset or path; see `dossier config --help`');
  },
};
