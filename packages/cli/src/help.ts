import type { Command } from './command.ts';
import { EXIT_CODE_DOCS } from './exit-codes.ts';
import { ENV_HELP, GLOBAL_HELP } from './globals.ts';
import type { Style } from './style.ts';

/** Two aligned columns, indented. */
export function columns(rows: [string, string][], indent = 2): string[] {
  const width = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `${' '.repeat(indent)}${a.padEnd(width)}  ${b}`);
}

/** `dossier --help`: what the tool is, one line per command, global flags, environment, files, exit codes. */
export function mainHelp(commands: readonly Command[], s: Style): string {
  return [
    `${s.bold('dossier')}: the command-line client of Dossier, a self-hosted document retrieval and research service`,
    '',
    `${s.bold('Usage:')} dossier <command> [options]`,
    '',
    s.bold('Commands:'),
    ...columns(commands.map((c) => [c.name, c.summary])),
    '',
    s.bold('Options (every command):'),
    ...columns([...GLOBAL_HELP, ['-v, --version', 'print the version']]),
    '',
    s.bold('Environment:'),
    ...columns(ENV_HELP),
    '',
    s.bold('Files:'),
    '  ~/.config/dossier/config.json  settings: default_collection, output, color, base_url, project_id (`dossier config`)',
    '  ~/.config/dossier/state.json   the last collection used, per API address',
    '  Precedence: flags, then environment, then config.json, then defaults.',
    '',
    s.bold('Exit codes:'),
    ...columns(EXIT_CODE_DOCS.map(([code, meaning]) => [String(code), meaning])),
    '',
    s.bold('Telemetry:'),
    "  off. Dossier's CLI sends no telemetry: nothing is collected and nothing leaves your machine.",
    '',
    'Start here: `dossier serve` in one terminal, then `dossier doctor`. Run `dossier <command> --help` for flags and examples.',
    '',
  ].join('\n');
}

/** `dossier <command> --help`: usage lines, description, subcommands, flags, examples. */
export function commandHelp(c: Command, s: Style): string {
  const lines = [`${s.bold('Usage:')}`, ...c.usage.map((u) => `  dossier ${u}`), ''];
  if (c.description) lines.push(c.description, '');
  if (c.subcommands?.length) lines.push(s.bold('Subcommands:'), ...columns(c.subcommands), '');
  if (c.optionHelp?.length) lines.push(s.bold('Options:'), ...columns(c.optionHelp), '');
  lines.push(s.bold('Global options:'), ...columns(GLOBAL_HELP), '');
  lines.push(s.bold('Examples:'), ...c.examples.map((e) => `  ${e}`), '');
  return lines.join('\n');
}
