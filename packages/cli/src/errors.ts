import { EXIT, type ExitCode } from './exit-codes.ts';

/** An error the CLI reports as one line on stderr, a hint saying what to do next, and an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** What the user can do about it, e.g. which flag or command to use. */
    readonly hint?: string,
    options?: { cause?: unknown; status?: number; retryAfterS?: number },
  ) {
    super(message, options);
    this.name = 'CliError';
    this.status = options?.status;
    this.retryAfterS = options?.retryAfterS;
  }

  /** The HTTP status of the answer this error reports, when it came from one. */
  readonly status: number | undefined;
  /** The answer's Retry-After in seconds, when it gave one. */
  readonly retryAfterS: number | undefined;
}

/** A usage error (exit 2): a wrong or missing flag or argument. */
export const usageError = (message: string, hint?: string): CliError => new CliError(message, EXIT.usage, hint);

/** The error for a command that needs a key when none is set (exit 77). */
export const missingKeyError = (why = 'this command needs an API key'): CliError =>
  new CliError(
    `${why}, and none is set`,
    EXIT.missingKey,
    'export SERVICE_API_KEY=dsk_live_… or pass --api-key <key>; the server prints its keys on first start and saves them in <data-dir>/bootstrap-credentials.txt',
  );
