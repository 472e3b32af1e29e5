import type { CliError } from './errors.ts';
import type { ColorMode } from './settings.ts';
import { makeStyle, printable, type Style, visibleWidth } from './style.ts';

/** What the CLI writes to: stdout for data, stderr for diagnostics. */
export interface Streams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

const colorFor = (mode: ColorMode, tty: boolean | undefined, env: NodeJS.ProcessEnv): boolean =>
  mode === 'always' || (mode === 'auto' && tty === true && env.TERM !== 'dumb');

/** Data on stdout (tables, text, JSON, NDJSON), diagnostics on stderr, colour only where it is on. */
export class Output {
  /** Styles for text written to stdout and to stderr. */
  readonly out: Style;
  readonly err: Style;

  constructor(
    readonly streams: Streams,
    /** Whether data is JSON (a single document, or NDJSON for streamed commands). */
    readonly json: boolean,
    color: ColorMode,
    env: NodeJS.ProcessEnv,
  ) {
    this.out = makeStyle(colorFor(color, streams.stdout.isTTY, env));
    this.err = makeStyle(colorFor(color, streams.stderr.isTTY, env));
  }

  get stdoutIsTTY(): boolean {
    return this.streams.stdout.isTTY === true;
  }

  get stderrIsTTY(): boolean {
    return this.streams.stderr.isTTY === true;
  }

  /** Raw text on stdout. */
  write(text: string): void {
    this.streams.stdout.write(text);
  }

  /** A line on stdout. */
  line(text = ''): void {
    this.write(`${text}\n`);
  }

  /** One JSON document on stdout (the --json result of a non-streamed command). */
  value(v: unknown): void {
    this.line(JSON.stringify(v, null, 2));
  }

  /** One NDJSON line on stdout (an event of a streamed command). */
  event(v: unknown): void {
    this.line(JSON.stringify(v));
  }

  /** A diagnostic line on stderr. */
  info(text: string): void {
    this.streams.stderr.write(`${text}\n`);
  }

  warn(text: string): void {
    this.info(`${this.err.yellow('warning:')} ${text}`);
  }

  /** An error and its hint on stderr. */
  error(e: CliError): void {
    this.info(`${this.err.red('error:')} ${e.message}`);
    if (e.hint) this.info(`${this.err.dim('hint:')} ${e.hint}`);
  }

  /** An aligned table on stdout: a bold header, then rows (bidi controls shown, not obeyed); the last column is not padded. */
  table(header: string[], rows: string[][]): void {
    rows = rows.map((r) => r.map(printable));
    const widths = header.map((h, i) => Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? ''))));
    const fmt = (cells: string[]) =>
      cells
        .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - visibleWidth(c))))
        .join('  ')
        .trimEnd();
    this.line(this.out.bold(fmt(header)));
    for (const r of rows) this.line(fmt(r));
  }
}
