import { createRequire } from 'node:module';
import { isMissingPackage } from '../optional.ts';
import { loadNodeSqlite, openNodeSqlite } from './node-sqlite.ts';

/** What a statement returns from `run`. */
export interface SqliteRunResult {
  changes: number | bigint;
  lastInsertRowid: number | bigint;
}

/** A prepared statement, as better-sqlite3 shapes it (Kysely's SqliteStatement plus what the job queue uses). */
export interface SqliteStatement {
  /** The statement returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean;
  /** The statement never writes, so it need not wait for a write group to commit. */
  readonly readonly: boolean;
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

/** One connection to an SQLite file: the slice of better-sqlite3's Database that Dossier uses, whatever the driver. */
export interface SqliteConnection {
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  /** `PRAGMA <source>`'s rows, or with `simple` the first column of its first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** `fn` in a transaction (a savepoint when one is open already); `immediate` takes the write lock first. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): { immediate(...args: A): R };
  close(): void;
  readonly inTransaction: boolean;
}

/** The SQLite drivers Dossier can run on. */
export const SQLITE_DRIVERS = ['node:sqlite', 'better-sqlite3'] as const;
export type SqliteDriverName = (typeof SQLITE_DRIVERS)[number];

/** Forces one driver (tests and benchmarks compare them); unset, Dossier picks (see sqliteDriverName). */
export const SQLITE_DRIVER_ENV = 'DOSSIER_SQLITE_DRIVER';

/**
 * The driver for this process: Node's built-in `node:sqlite` where it loads without a flag and has what the store
 * needs (Node 22.16+, 24), so an install has nothing to compile and nothing an install script can skip (issue 41:
 * npm 11 skipped better-sqlite3's build, leaving no binary). better-sqlite3 12 otherwise (Node 20), an optional
 * dependency. A value in DOSSIER_SQLITE_DRIVER forces one.
 */
export function sqliteDriverName(): SqliteDriverName {
  const forced = process.env[SQLITE_DRIVER_ENV];
  if (forced) {
    if (!(SQLITE_DRIVERS as readonly string[]).includes(forced)) {
      throw new Error(`${SQLITE_DRIVER_ENV} must be one of ${SQLITE_DRIVERS.join(', ')}, not "${forced}"`);
    }
    if (forced === 'node:sqlite' && !loadNodeSqlite())
      throw new Error(`node:sqlite is not available on Node ${process.versions.node} (it needs 22.16 or later)`);
    return forced as SqliteDriverName;
  }
  return loadNodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

/**
 * Opens a connection with this process's driver (loaded on first use, so importing the adapters costs nothing);
 * `driver` names one instead (tests compare them).
 */
export function openSqlite(filename: string, options: { readonly?: boolean; driver?: SqliteDriverName } = {}): SqliteConnection {
  if ((options.driver ?? sqliteDriverName()) === 'node:sqlite') return openNodeSqlite(filename, options);
  const Database = createRequire(import.meta.url)(betterSqlitePath()) as new (file: string, opts: { readonly?: boolean }) => SqliteConnection;
  return new Database(filename, { readonly: options.readonly ?? false });
}

/**
 * A connection to a file that other connections and processes share: write-ahead log (readers go on while a writer
 * writes), synchronous=NORMAL (survives a crash of the process; a power cut may drop the last commits), and a wait
 * of up to `busyTimeoutMs` for another writer instead of failing with SQLITE_BUSY.
 */
export function openWalSqlite(filename: string, busyTimeoutMs = 5000): SqliteConnection {
  const db = openSqlite(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
  return db;
}

/** What a worker thread needs to open the same driver: null for node:sqlite, else better-sqlite3's module path. */
export function sqliteWorkerDriverPath(): string | null {
  return sqliteDriverName() === 'node:sqlite' ? null : betterSqlitePath();
}

function betterSqlitePath(): string {
  try {
    return createRequire(import.meta.url).resolve('better-sqlite3');
  } catch (err) {
    if (!isMissingPackage(err, 'better-sqlite3')) throw err;
    throw new Error(`SQLite needs Node 22.16 or later (for node:sqlite), or the better-sqlite3 package on Node ${process.versions.node}`, { cause: err });
  }
}

/** A private in-memory database (':memory:', or '' for a temporary one): no file, no other connection. */
export const isInMemory = (filename: string): boolean => filename === ':memory:' || filename === '';
