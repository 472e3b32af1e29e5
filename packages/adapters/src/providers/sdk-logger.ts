import type { Logger } from '@dossier/core';

/** The logger shape both official SDKs accept (`logger` option): four levels, a message and any arguments. */
export interface SdkLogger {
  debug(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

/** SDK log level: warnings and errors only (debug output would carry request bodies). */
export const SDK_LOG_LEVEL = 'warn';

/** Extra arguments as plain strings (an Error by its message), never objects that may hold headers or keys. */
const details = (rest: unknown[]): string[] => rest.map((r) => (r instanceof Error ? r.message : typeof r === 'string' ? r : typeof r));

/**
 * The SDKs print to `console` by default (deprecation notices, warnings), which would put non-JSON lines in the
 * server's JSON log; this routes them to Dossier's logger instead (issue 12).
 */
export function sdkLogger(sdk: string, log: Logger): SdkLogger {
  const line =
    (write: Logger['warn']) =>
    (message: string, ...rest: unknown[]) =>
      write(`${sdk} sdk: ${message}`, rest.length ? { details: details(rest) } : undefined);
  return { debug: () => {}, info: line(log.info), warn: line(log.warn), error: line(log.error) };
}
