import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryCompiler, QueryResult } from 'kysely';
import { type Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from '../kysely/runtime.ts';
import type { SqliteConnection } from './driver.ts';
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
  /** `file`: the database file (see WriteGroup). */
  constructor(
    private readonly database: () => Promise<GroupedDatabase>,
    private readonly file: string,
  ) {}

  createDriver(): Driver {
    return new GroupedDriver(this.database, this.file);
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

class GroupedDriver implements Driver {
  private db: GroupedDatabase | undefined;
  private group: WriteGroup | undefined;
  /** The tail of the queue of connection holders. */
  private held: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: () => Promise<GroupedDatabase>,
    private readonly file: string,
  ) {}

  async init(): Promise<void> {
    this.db = await this.database();
    this.group = new WriteGroup(this.db, this.file);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const previous = this.held;
    this.held = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    return new GroupedConnection(this.db!, this.group!, release);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as GroupedConnection).begin();
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as GroupedConnection).commit();
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as GroupedConnection).rollback();
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as GroupedConnection).release();
  }
  async destroy(): Promise<void> {
    await this.group?.settled();
    await this.db?.close();
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
    const stmt = this.db.prepare(query.sql);
    const params = query.parameters as unknown[];
    // A write with RETURNING is a reader too; only a read-only statement may answer before the group commits.
    const execute = (): QueryResult<R> => (stmt.reader ? { rows: stmt.all(params) as R[] } : resultOf(stmt.run(params)));
    if (stmt.readonly || this.inTransaction) return execute();
    const committed = this.group.write(execute);
    this.release();
    return committed;
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

function resultOf<R>(info: { changes?: number | bigint; lastInsertRowid?: number | bigint }): QueryResult<R> {
  return {
    numAffectedRows: info.changes === undefined || info.changes === null ? undefined : BigInt(info.changes),
    insertId: info.lastInsertRowid === undefined || info.lastInsertRowid === null ? undefined : BigInt(info.lastInsertRowid),
    rows: [],
  };
}
