import { parseArgs } from 'node:util';
import pkg from '../package.json' with { type: 'json' };
import { resolveCollection } from './collection.ts';
import type { Command, Context, Values } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { ApiClient } from './client.ts';
import { CliError, missingKeyError, usageError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { GLOBAL_OPTIONS, GLOBAL_VALUE_FLAGS } from './globals.ts';
import { commandHelp, mainHelp } from './help.ts';
import { Output, type Streams } from './output.ts';
import { type GlobalFlags, resolveSettings, type Settings } from './settings.ts';
import { lastCollection, rememberCollection } from './state-file.ts';

export const VERSION: string = pkg.version;

/** Where the CLI reads and writes, and what stops it (tests and embedders pass their own). */
export interface Io extends Streams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
}

/** The command name (the first argument that is not a global flag or its value) and the other arguments. */
export function splitCommand(argv: string[]): { name: string | null; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (GLOBAL_VALUE_FLAGS.has(a)) i++;
      continue;
    }
    return { name: a, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { name: null, rest: argv };
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length]![b.length]!;
}

function unknownCommand(name: string): CliError {
  const near = COMMANDS.map((c) => c.name).filter((n) => distance(n, name) <= 2 || n.startsWith(name));
  return usageError(
    `unknown command '${name}'`,
    `${near.length ? `did you mean \`dossier ${near[0]}\`? ` : ''}run \`dossier --help\` for the list of commands`,
  );
}

function parse(cmd: Command, args: string[]): { values: Values; positionals: string[] } {
  try {
    return parseArgs({ args, options: { ...GLOBAL_OPTIONS, ...cmd.options }, allowPositionals: true, strict: true }) as {
      values: Values;
      positionals: string[];
    };
  } catch (err) {
    throw usageError(
      `${(err as Error).message.replace(/\. To specify a positional.*$/s, '')}`,
      `run \`dossier ${cmd.name} --help\` for its flags and examples`,
    );
  }
}

/** The context a command runs with; records the collection it used so it can be remembered. */
function makeContext(io: Io, cmd: Command, parsed: { values: Values; positionals: string[] }, argv: string[], settings: Settings, out: Output) {
  let used: string | null = null;
  const api = ({ keyRequired = true } = {}) => {
    if (!settings.baseUrl.normalized) {
      throw usageError(`bad API address: ${settings.baseUrl.error}`, 'fix SERVICE_BASE_URL, --base-url or `dossier config set base_url <url>`');
    }
    if (keyRequired && !settings.apiKey.value) throw missingKeyError(`\`dossier ${cmd.name}\` needs an API key`);
    return new ApiClient(settings.baseUrl.normalized, settings.apiKey.value);
  };
  const ctx: Context = {
    ...parsed,
    argv,
    settings,
    out,
    env: io.env,
    stdin: io.stdin,
    signal: io.signal,
    api,
    async collection() {
      const flag = typeof parsed.values.collection === 'string' ? parsed.values.collection : undefined;
      const remembered = settings.baseUrl.normalized ? lastCollection(io.env, settings.baseUrl.normalized) : undefined;
      const id = await resolveCollection(
        () => api({ keyRequired: false }),
        flag ?? remembered ?? settings.defaultCollection ?? undefined,
        Boolean(settings.apiKey.value),
      );
      used = id;
      return id;
    },
    useCollection(id) {
      used = id;
    },
    projectId() {
      if (settings.projectId.value) return settings.projectId.value;
      throw usageError(
        `\`dossier ${cmd.name}\` needs the project id, and none is set`,
        "pass --project <id>, export SERVICE_PROJECT_ID=<id>, or run `dossier config set project_id <id>`; the id is printed on the server's first start and saved as project_id in <data-dir>/bootstrap-credentials.txt",
      );
    },
  };
  return { ctx, used: () => used };
}

/** A pass-through command (serve) accepts -c/--collection and --json like every command, and ignores them. */
function withoutClientFlags(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '--collection') i++;
    else if (!a.startsWith('--collection=') && a !== '--json') out.push(a);
  }
  return out;
}

const exitCodeOf = (result: unknown): number => (typeof result === 'number' ? result : EXIT.ok);

/** Remember the collection a successful command used, unless it is already the remembered one. */
function remember(io: Io, settings: Settings, id: string | null): void {
  const base = settings.baseUrl.normalized;
  if (!id || !base || lastCollection(io.env, base) === id) return;
  try {
    rememberCollection(io.env, base, id);
  } catch {
    // the state file is a convenience; failing to write it must not fail the command
  }
}

async function runCommand(cmd: Command, rest: string[], io: Io, out: () => Output, setOut: (o: Output) => void): Promise<number> {
  if (cmd.rawArgs) {
    if (rest.includes('--help') || rest.includes('-h')) {
      out().line(commandHelp(cmd, out().out));
      return EXIT.ok;
    }
    const settings = resolveSettings({}, io.env);
    const { ctx } = makeContext(io, cmd, { values: {}, positionals: [] }, withoutClientFlags(rest), settings, out());
    return exitCodeOf(await cmd.run(ctx));
  }
  const parsed = parse(cmd, rest);
  const settings = resolveSettings(parsed.values as GlobalFlags, io.env);
  const o = new Output(io, settings.json, settings.color, io.env);
  setOut(o);
  if (parsed.values.help) {
    o.line(commandHelp(cmd, o.out));
    return EXIT.ok;
  }
  if (settings.configError && cmd.name !== 'config' && cmd.name !== 'doctor') throw settings.configError;
  const { ctx, used } = makeContext(io, cmd, parsed, rest, settings, o);
  const code = exitCodeOf(await cmd.run(ctx));
  if (code === EXIT.ok) remember(io, settings, used());
  return code;
}

/** Run `dossier` with these arguments; resolves to the exit code. Never throws. */
export async function run(argv: string[], io: Io): Promise<number> {
  let out = new Output(io, false, io.env.NO_COLOR ? 'never' : 'auto', io.env);
  try {
    const { name, rest } = splitCommand(argv);
    if (name === null) {
      if (rest.includes('--version') || rest.includes('-v')) {
        out.line(VERSION);
        return EXIT.ok;
      }
      const help = mainHelp(COMMANDS, out.out);
      if (rest.includes('--help') || rest.includes('-h')) {
        out.line(help);
        return EXIT.ok;
      }
      io.stderr.write(`${help}\n`);
      return EXIT.usage;
    }
    if (name === 'help') {
      const target = COMMANDS.find((c) => c.name === rest.find((a) => !a.startsWith('-')));
      out.line(target ? commandHelp(target, out.out) : mainHelp(COMMANDS, out.out));
      return EXIT.ok;
    }
    const cmd = COMMANDS.find((c) => c.name === name);
    if (!cmd) throw unknownCommand(name);
    return await runCommand(
      cmd,
      rest,
      io,
      () => out,
      (o) => {
        out = o;
      },
    );
  } catch (err) {
    if (io.signal.aborted) return EXIT.interrupted;
    if (err instanceof CliError) {
      out.error(err);
      return err.exitCode;
    }
    out.error(
      new CliError(
        `unexpected failure: ${err instanceof Error ? err.message : String(err)}`,
        EXIT.failure,
        'this is a bug in dossier; set DOSSIER_DEBUG=1 to see the stack',
      ),
    );
    if (io.env.DOSSIER_DEBUG) io.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
    return EXIT.failure;
  }
}
