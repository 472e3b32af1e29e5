import type { ParseArgsConfig } from 'node:util';
import type { ApiClient } from './client.ts';
import type { Output } from './output.ts';
import type { Settings } from './settings.ts';

/** parseArgs option specs of a command. */
export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** Parsed flag values (strings, booleans, or arrays for repeatable flags). */
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command runs with. */
export interface Context {
  values: Values;
  positionals: string[];
  /** The arguments after the command name, unparsed (for `serve`). */
  argv: string[];
  settings: Settings;
  out: Output;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** The API client; with a key required (the default) it stops with exit 77 when none is set. */
  api(opts?: { keyRequired?: boolean }): ApiClient;
  /** The collection to act on: -c (id or name), else the last used, else config's default_collection. */
  collection(): Promise<string>;
  /** Record a collection as used, so later commands default to it (saved when the command succeeds). */
  useCollection(id: string): void;
  /** The project id (--project, SERVICE_PROJECT_ID or config project_id), or a usage error saying how to set it. */
  projectId(): string;
}

/** One `dossier` command: its help text and what it does. */
export interface Command {
  name: string;
  /** One line for `dossier --help`. */
  summary: string;
  /** Usage lines, each after `dossier `. */
  usage: string[];
  /** A paragraph under the usage lines. */
  description?: string;
  /** Subcommands with one line each. */
  subcommands?: [string, string][];
  /** Flags of this command (the global ones are added). */
  options?: OptionSpecs;
  /** Help lines of the flags: [`--limit <n>`, `what it does`]. */
  optionHelp?: [string, string][];
  examples: string[];
  /** Pass the arguments through unparsed (serve hands them to the server's own parser). */
  rawArgs?: boolean;
  /** Run; a number it resolves to is the exit code, anything else means 0. */
  run(ctx: Context): Promise<unknown>;
}
