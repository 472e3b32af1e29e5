import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryCompiler, QueryResult } from 'kysely';
import { Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from '../kysely/runtime.ts';
import type { StatementLane } from '../kysely/dialect.ts';
import type { MetadataDatabase } from '../kysely/schema.ts';
import type { SqliteConnection, SqliteStatement } from './driver.ts';
import { type GroupableDatabase, WriteGroup } from './write-group.ts';

/** The SQLite connection (see driver.ts) as this dialect uses it. */
export type GroupedDatabase = Pick<SqliteConnection, 'prepare'> & GroupableDatabase & { close(): void | Promise<void> };

/** Savepoint name of a Kysely transaction (SQLite's connection is one, so transactions never overlap). */
const TX = 'kysely_tx';

/** SQLite's dialect over a given driver: the grouped one, or the connection a lane transaction holds (see GroupedDriver.transaction). */
class SqliteDialectOver implements Dialect {
  constructor(protected readonly driver: Driver) {}

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
 * Kysely's SQLite dialect with group commit (see WriteGroup): a write outside a transaction, and a transaction's
 * commit, resolve once the write group holding them commits. The connection is handed back as soon as the
 * statements ran, before that commit, so writes of other callers join the same group.
 */
export class GroupedSqliteDialect extends SqliteDialectOver {
  /** `file`: the database file (see WriteGroup). */
  constructor(database: () => Promise<GroupedDatabase>, file: string) {
    super(new GroupedDriver(database, file));
  }

  /** Statements of the store's query functions run here past Kysely's executor (see StatementLane). */
  get lane(): StatementLane {
    return this.driver as GroupedDriver;
  }
}

/** The lane of a context whose transaction has ended, or that has none: every statement goes through Kysely. */
const DECLINING_LANE: StatementLane = {
  run: () => undefined,
  inTransaction: () => DECLINING_LANE,
  transaction: () => undefined,
};

/** The work of a lane transaction: it gets a Kysely and a lane on the transaction's connection. */
type TransactionWork<T> = (db: Kysely<MetadataDatabase>, lane: StatementLane) => Promise<T>;

/**
 * The single connection, lent to one holder at a time in the order they asked. As a StatementLane it runs a
 * statement at once when no one holds or waits for the connection (what Kysely would do a few promises later), and
 * runs transactions without Kysely's per-transaction machinery.
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
  /** Kysely for the builder queries of lane transactions (see transaction), made on first use. */
  private heldDb: Kysely<MetadataDatabase> | undefined;

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

  /** The open transaction's connection as a lane (it declines once the transaction ends). */
  inTransaction(): StatementLane {
    return this.transactionHolder ?? DECLINING_LANE;
  }

  /**
   * What Kysely's transaction().execute() does (wait for the connection, begin, run, commit or roll back, hand the
   * connection on), without the Kysely, executor and connection provider it makes per transaction. `work` gets a
   * Kysely whose queries run on the connection of the open transaction.
   */
  transaction<T>(work: TransactionWork<T>): Promise<T> | undefined {
    if (!this.group || this.destroyed) return undefined;
    return this.acquireConnection().then((connection) => this.runTransaction(connection as GroupedConnection, work));
  }

  private async runTransaction<T>(holder: GroupedConnection, work: TransactionWork<T>): Promise<T> {
    let begun = false;
    try {
      this.begin(holder);
      begun = true;
      const result = await work(this.heldKysely(), holder);
      this.transactionHolder = undefined;
      await holder.commit();
      return result;
    } catch (err) {
      this.transactionHolder = undefined;
      if (begun) holder.rollback();
      throw err;
    } finally {
      holder.release();
    }
  }

  private heldKysely(): Kysely<MetadataDatabase> {
    this.heldDb ??= new Kysely<MetadataDatabase>({ dialect: new SqliteDialectOver(new HeldConnectionDriver(() => this.transactionHolder)) });
    return this.heldDb;
  }

  private begin(holder: GroupedConnection): void {
    holder.begin();
    this.transactionHolder = holder;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    this.begin(connection as GroupedConnection);
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

/**
 * The driver of lane transactions' Kysely: every query runs on the connection the open transaction holds (none
 * open: the query fails), and the transaction alone begins, ends and releases it.
 */
class HeldConnectionDriver implements Driver {
  constructor(private readonly holder: () => GroupedConnection | undefined) {}

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    const holder = this.holder();
    if (!holder) throw new Error('The transaction has ended');
    return holder;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('Transactions do not nest');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/**
 * One holding of the single connection; `release` may come early (before a write's group commits). While its
 * transaction is open it is that transaction's lane: statements run on it at once.
 */
class GroupedConnection implements DatabaseConnection, StatementLane {
  private transactionOpen = false;
  private released = false;

  constructor(
    private readonly db: GroupedDatabase,
    private readonly group: WriteGroup,
    private readonly unlock: () => void,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.transactionOpen) return executeOn(this.db, query) as QueryResult<R>;
    const result = runGrouped(this.db, this.group, query) as Promise<QueryResult<R>>;
    this.release();
    return result;
  }

  // biome-ignore lint/correctness/useYield: Kysely's SQLite dialect does not stream either.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The SQLite metadata store does not stream queries');
  }

  run(query: CompiledQuery): Promise<QueryResult<unknown>> | undefined {
    if (!this.transactionOpen) return undefined;
    try {
      return Promise.resolve(executeOn(this.db, query));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  inTransaction(): StatementLane {
    return this.transactionOpen ? this : DECLINING_LANE;
  }

  /** No nesting: the caller falls back to its Kysely's transaction(), which refuses. */
  transaction(): undefined {
    return undefined;
  }

  begin(): void {
    this.group.beginTransaction(TX);
    this.transactionOpen = true;
  }

  commit(): Promise<void> {
    this.transactionOpen = false;
    const committed = this.group.commitTransaction(TX);
    this.release();
    return committed;
  }

  rollback(): void {
    this.transactionOpen = false;
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
    if (stmt.readonly) return Promise.resolve(executeStatement(stmt, query));
  } catch (err) {
    return Promise.reject(err);
  }
  return group.write(() => executeStatement(stmt, query));
}

/** Runs a statement at once (inside a transaction). */
function executeOn(db: GroupedDatabase, query: CompiledQuery): QueryResult<unknown> {
  return executeStatement(db.prepare(query.sql), query);
}

function executeStatement(stmt: SqliteStatement, query: CompiledQuery): QueryResult<unknown> {
  const params = query.parameters as unknown[];
  return stmt.reader ? { rows: stmt.all(params) } : resultOf(stmt.run(params));
}

function resultOf<R>(info: { changes?: number | bigint; lastInsertRowid?: number | bigint }): QueryResult<R> {
  return {
    numAffectedRows: info.changes === undefined || info.changes === null ? undefined : BigInt(info.changes),
    insertId: info.lastInsertRowid === undefined || info.lastInsertRowid === null ? undefined : BigInt(info.lastInsertRowid),
    rows: [],
  };
}
