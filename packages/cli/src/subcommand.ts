import type { Context } from './command.ts';
import { usageError } from './errors.ts';

/** A subcommand; a number it returns is the exit code, anything else means success. */
type Handler = (ctx: Context) => unknown;

/** Run the subcommand named by the first positional argument, or stop with a usage error listing them. */
export async function dispatch(ctx: Context, command: string, handlers: Record<string, Handler>): Promise<number | undefined> {
  const sub = ctx.positionals[0];
  const names = Object.keys(handlers);
  const handler = sub === undefined ? undefined : handlers[sub];
  if (!handler) {
    throw usageError(
      sub ? `unknown subcommand '${command} ${sub}'` : `\`dossier ${command}\` needs a subcommand`,
      `use ${names.join(', ')}; see \`dossier ${command} --help\``,
    );
  }
  const code = await handler(ctx);
  return typeof code === 'number' ? code : undefined;
}

/** The i-th positional argument (after the subcommand), or a usage error that shows an example. */
export function arg(ctx: Context, i: number, what: string, example: string): string {
  const v = ctx.positionals[i];
  if (v === undefined || v === '') throw usageError(`missing ${what}`, `e.g. ${example}`);
  return v;
}
