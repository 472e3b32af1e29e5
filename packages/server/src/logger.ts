import type { Logger } from '@dossier/core';
import type { ServerConfig } from './config.ts';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

/** JSON-lines logger on stderr. Callers never pass secrets; this is the only place log lines are formatted. */
export function createLogger(level: ServerConfig['logLevel'], out: NodeJS.WritableStream = process.stderr): Logger {
  const min = LEVELS[level];
  const write = (lvl: keyof typeof LEVELS, msg: string, data?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return;
    out.write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...data })}\n`);
  };
  return {
    info: (msg, data) => write('info', msg, data),
    warn: (msg, data) => write('warn', msg, data),
    error: (msg, data) => write('error', msg, data),
  };
}
