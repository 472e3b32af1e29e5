import { createRequire } from 'node:module';

interface Tally {
  calls: number;
  ms: number;
}

/**
 * Counts and times every statement better-sqlite3 runs in this process (prepare, exec, and each statement's
 * run/get/all), keyed by its SQL; `report` lists the costliest. For profiling only: it patches the driver's prototypes,
 * so it counts only where better-sqlite3 is the driver (Node 20, or DOSSIER_SQLITE_DRIVER=better-sqlite3).
 */
export function countStatements(): { report(): string } {
  const Database = createRequire(new URL('../../packages/adapters/package.json', import.meta.url))('better-sqlite3') as {
    prototype: Record<string, (...args: unknown[]) => unknown>;
  };
  const tallies = new Map<string, Tally>();
  const add = (key: string, ms: number) => {
    const t = tallies.get(key) ?? { calls: 0, ms: 0 };
    t.calls++;
    t.ms += ms;
    tallies.set(key, t);
  };
  const timed = <T>(key: string, run: () => T): T => {
    const t0 = performance.now();
    try {
      return run();
    } finally {
      add(key, performance.now() - t0);
    }
  };
  const { prepare, exec } = Database.prototype;
  Database.prototype.exec = function (this: unknown, source: unknown) {
    return timed(`exec ${String(source).slice(0, 60)}`, () => exec!.call(this, source));
  };
  Database.prototype.prepare = function (this: unknown, source: unknown) {
    const stmt = timed('prepare', () => prepare!.call(this, source)) as Record<string, (...a: unknown[]) => unknown>;
    const key = String(source).replace(/\s+/g, ' ').slice(0, 110);
    for (const method of ['run', 'get', 'all']) {
      const original = stmt[method]!;
      stmt[method] = (...args: unknown[]) => timed(key, () => original.apply(stmt, args));
    }
    return stmt;
  };
  return {
    report() {
      const rows = [...tallies].sort((a, b) => b[1].ms - a[1].ms).slice(0, 40);
      const total = [...tallies.values()].reduce((n, t) => n + t.ms, 0);
      return `${rows.map(([k, t]) => `${t.ms.toFixed(0).padStart(7)} ms ${String(t.calls).padStart(7)}× ${k}`).join('\n')}\ntotal ${total.toFixed(0)} ms\n`;
    },
  };
}
