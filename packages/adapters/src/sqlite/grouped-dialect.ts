import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryCompiler, QueryResult } from 'kysely';
import { type Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from '../kysely/runtime.ts';
import type { StatementLane } from '../kysely/dialect.ts';
import type { SqliteConnection, SqliteStatement } from './driver.ts';
import { type GroupableDatabase, WriteGroup } from './write-group.ts';

/** The SQLite connection (see driver.ts) as this dialect uses it. */
export type GroupedDatabase = Pick<SqliteConnection, 'prepare'> & GroupableDatabase & { close(): void | Promise<void> };

/** Savepoint name of a Kysely transaction (SQLite's connection is one, so transactions never overlap). */
const TX = 'kysely_tx';

/**
 * Kysely's SQLite dialect with group commit (see WriteGroup): a write outside a transaction, and a transaction's
 * commit, resolve once the write group holding them commits. The connection is handed back as soon as the
 * statements ran, before that commit, so writes of other callers join the same group.
 */
export class GroupedSqliteDialect implements Dialect {
  private readonly driver: GroupedDriver;

  /** `file`: the database file (see WriteGroup). */
  constructor(database: () => Promise<GroupedDatabase>, file: string) {
    this.driver = new GroupedDriver(database, file);
  }

  /** Statements of the store's query functions run here past Kysely's executor (see StatementLane). */
  get lane(): StatementLane {
    return this.driver;
  }

  createDriver(): Driver {
    return this.driver;
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  // biome-ignore lint/suspicious/noExplicitAny: Kysely's own dialects take Kysely<any> here.
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}

/**
 * The single connection, lent to one holder at a time in the order they asked. As a StatementLane it runs a
 * statement at once when no one holds or waits for the connection (what Kysely would do a few promises later), and a
 * transaction's statements at once on the connection its callback holds.
 */
class GroupedDriver implements Driver, StatementLane {
  private db: GroupedDatabase | undefined;
  private group: WriteGroup | undefined;
  /** The connection is lent (`waiting` holds the next holders, first first). */
  private busy = false;
  private readonly waiting: (() => void)[] = [];
  /** The holding whose transaction is open. */
  private transactionHolder: GroupedConnection | undefined;
  private destroyed = false;
  private readonly release = () => this.unlock();

  constructor(
    private readonly database: () => Promise<GroupedDatabase>,
    private readonly file: string,
  ) {}

  async init(): Promise<void> {
    this.db = await this.database();
    this.group = new WriteGroup(this.db, this.file);
  }

  acquireConnection(): Promise<DatabaseConnection> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(this.connection());
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.connection())));
  }

  run(query: CompiledQuery): Promise<QueryResult<unknown>> | undefined {
    if (this.busy || !this.group || this.destroyed) return undefined;
    return runGrouped(this.db!, this.group, query);
  }

  /** A lane for the open transaction only: once it ends (or if none is open) it declines every statement. */
  inTransaction(): StatementLane {
    const holder = this.transactionHolder;
    const lane: StatementLane = {
      run: (query) => (holder && this.transactionHolder === holder ? settle(() => executeOn(this.db!, query)) : undefined),
      inTransaction: () => lane,
    };
    return lane;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as GroupedConnection).begin();
    this.transactionHolder = connection as GroupedConnection;
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    this.transactionHolder = undefined;
    await (connection as GroupedConnection).commit();
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.transactionHolder = undefined;
    (connection as GroupedConnection).rollback();
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as GroupedConnection).release();
  }
  async destroy(): Promise<void> {
    this.destroyed = true;
    await this.group?.settled();
    await this.db?.close();
  }

  private connection(): GroupedConnection {
    return new GroupedConnection(this.db!, this.group!, this.release);
  }

  /** Lends the connection to the next holder, or marks it free. */
  private unlock(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy = false;
  }
}

/** One holding of the single connection; `release` may come early (before a write's group commits). */
class GroupedConnection implements DatabaseConnection {
  private inTransaction = false;
  private released = false;

  constructor(
    private readonly db: GroupedDatabase,
    private readonly group: WriteGroup,
    private readonly unlock: () => void,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return executeOn(this.db, query) as QueryResult<R>;
    const result = runGrouped(this.db, this.group, query) as Promise<QueryResult<R>>;
    this.release();
    return result;
  }

  // biome-ignore lint/correctness/useYield: Kysely's SQLite dialect does not stream either.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The SQLite metadata store does not stream queries');
  }

  begin(): void {
    this.group.beginTransaction(TX);
    this.inTransaction = true;
  }

  commit(): Promise<void> {
    this.inTransaction = false;
    const committed = this.group.commitTransaction(TX);
    this.release();
    return committed;
  }

  rollback(): void {
    this.inTransaction = false;
    this.group.rollbackTransaction(TX);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.unlock();
  }
}

/**
 * Runs a statement outside a transaction: a read at once; a write in the write group, settling once the group commits
 * (a write with RETURNING is a reader too, and waits for the commit like any write).
 */
function runGrouped(db: GroupedDatabase, group: WriteGroup, query: CompiledQuery): Promise<QueryResult<unknown>> {
  let stmt: SqliteStatement;
  try {
    stmt = db.prepare(query.sql);
  } catch (err) {
    return Promise.reject(err);
  }
  if (!stmt.readonly) return group.write(() => executeStatement(stmt, query));
  return settle(() => executeStatement(stmt, query));
}

/** Runs a statement at once (inside a transaction, or a read). */
function executeOn(db: GroupedDatabase, query: CompiledQuery): QueryResult<unknown> {
  return executeStatement(db.prepare(query.sql), query);
}

function executeStatement(stmt: SqliteStatement, query: CompiledQuery): QueryResult<unknown> {
  const params = query.parameters as unknown[];
  return stmt.reader ? { rows: stmt.all(params) } : resultOf(stmt.run(params));
}

/** `run`'s result as a promise, its error as a rejection (as an async driver method would give them). */
function settle<T>(run: () => T): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (err) {
    return Promise.reject(err);
  }
}

function resultOf<R>(info: { changes?: number | bigint; lastInsertRowid?: number | bigint }): QueryResult<R> {
  return {
    numAffectedRows: info.changes === undefined || info.changes === null ? undefined : BigInt(info.changes),
    insertId: info.lastInsertRowid === undefined || info.lastInsertRowid === null ? undefined : BigInt(info.lastInsertRowid),
    rows: [],
  };
}
