import type { SqliteConnection, SqliteRunResult, SqliteStatement } from './driver.ts';

/** The slice of `node:sqlite` this adapter uses (typed here: @types/node 20 does not declare the module). */
interface StatementSync {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  columns(): unknown[];
}
interface DatabaseSync {
  prepare(source: string): StatementSync;
  exec(source: string): void;
  close(): void;
  readonly isTransaction: boolean;
}
interface NodeSqliteModule {
  DatabaseSync: new (filename: string, options?: { readOnly?: boolean }) => DatabaseSync;
}

let loaded: NodeSqliteModule | null | undefined;

/**
 * `node:sqlite`, or null where this Node lacks it or lacks what the adapter needs: the module loads without a flag from
 * 22.13 and 23.4, statement `columns()` (which tells a reader) from 22.16 and 23.11, `isTransaction` from 22.16 and 24.
 * Loading it prints an ExperimentalWarning on some versions; that one warning, and only it, is kept quiet.
 */
export function loadNodeSqlite(): NodeSqliteModule | null {
  if (loaded !== undefined) return loaded;
  const sqlite = withoutSqliteWarning(() => process.getBuiltinModule?.('node:sqlite') as NodeSqliteModule | undefined);
  loaded = sqlite && isComplete(sqlite) ? sqlite : null;
  return loaded;
}

function isComplete(sqlite: NodeSqliteModule): boolean {
  const probe = new sqlite.DatabaseSync(':memory:');
  try {
    return typeof probe.isTransaction === 'boolean' && typeof probe.prepare('select 1').columns === 'function';
  } finally {
    probe.close();
  }
}

/** The text of the warning `node:sqlite` emits when first loaded. */
const SQLITE_WARNING = /^SQLite is an experimental feature/;

function withoutSqliteWarning<T>(load: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (SQLITE_WARNING.test(typeof warning === 'string' ? warning : warning.message)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Opens `filename` with node:sqlite behind better-sqlite3's shape (see SqliteConnection). */
export function openNodeSqlite(filename: string, options: { readonly?: boolean }): SqliteConnection {
  const sqlite = loadNodeSqlite();
  if (!sqlite) throw new Error(`node:sqlite is not available on Node ${process.versions.node}`);
  return new NodeSqliteConnection(new sqlite.DatabaseSync(filename, { readOnly: options.readonly ?? false }));
}

class NodeSqliteConnection implements SqliteConnection {
  constructor(private readonly db: DatabaseSync) {}

  prepare(source: string): SqliteStatement {
    return new NodeSqliteStatement(this.db.prepare(source), source);
  }
  exec(source: string): void {
    this.db.exec(source);
  }
  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const rows = this.db.prepare(`PRAGMA ${source}`).all() as Record<string, unknown>[];
    return options.simple ? Object.values(rows[0] ?? {})[0] : rows;
  }
  transaction<A extends unknown[], R>(fn: (...args: A) => R): { immediate(...args: A): R } {
    return { immediate: (...args) => (this.db.isTransaction ? this.inSavepoint(fn, args) : this.inNewTransaction(fn, args)) };
  }
  close(): void {
    this.db.close();
  }
  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  /** Like better-sqlite3: BEGIN IMMEDIATE, COMMIT on return, ROLLBACK on a throw (unless SQLite rolled back already). */
  private inNewTransaction<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn(...args);
      this.db.exec('COMMIT');
      return result;
    } catch (err) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /** A transaction inside an open one is a savepoint, as in better-sqlite3. */
  private inSavepoint<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
    this.db.exec(`SAVEPOINT ${SAVEPOINT}`);
    try {
      const result = fn(...args);
      this.db.exec(`RELEASE ${SAVEPOINT}`);
      return result;
    } catch (err) {
      if (this.db.isTransaction) this.db.exec(`ROLLBACK TO ${SAVEPOINT}; RELEASE ${SAVEPOINT}`);
      throw err;
    }
  }
}

const SAVEPOINT = 'dossier_nested_tx';

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly readonly: boolean;

  constructor(
    private readonly stmt: StatementSync,
    source: string,
  ) {
    this.reader = stmt.columns().length > 0;
    this.readonly = isReadOnly(source);
  }

  run(...params: unknown[]): SqliteRunResult {
    return this.stmt.run(...bindings(params));
  }
  get(...params: unknown[]): unknown {
    return this.stmt.get(...bindings(params));
  }
  all(...params: unknown[]): unknown[] {
    return this.stmt.all(...bindings(params));
  }
  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.stmt.iterate(...bindings(params));
  }
}

/** better-sqlite3 spreads an array argument into positional parameters (Kysely passes one); node:sqlite does not. */
const bindings = (params: unknown[]): unknown[] => (params.length === 1 && Array.isArray(params[0]) ? params[0] : params);

/**
 * node:sqlite does not expose sqlite3_stmt_readonly, so the SQL text decides: a SELECT, or a WITH … that names no
 * write, is read-only. Anything else counts as a write, the safe side: a write taken for a read would answer before
 * its group commits (see WriteGroup), while a read taken for a write only waits for that commit.
 */
export function isReadOnly(source: string): boolean {
  if (/^\s*select\b/i.test(source)) return true;
  return /^\s*with\b/i.test(source) && !WRITE_KEYWORD.test(source);
}

const WRITE_KEYWORD = /\b(insert|update|delete|replace)\b/i;
