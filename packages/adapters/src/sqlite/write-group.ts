/** The part of an SQLite connection (see driver.ts) a write group needs. */
export interface GroupableDatabase {
  exec(source: string): unknown;
  readonly inTransaction: boolean;
}

/** Groups of this process holding a write lock, at most one per connection. */
const openGroups = new Set<WriteGroup>();

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for one SQLite connection: writes made during one turn of the event loop share one transaction,
 * committed once the turn's callbacks have run, and each writer's promise settles with that commit. Ingesting a
 * document made about ten small commits (status changes, job claim and completion, sections), each writing every
 * page it touched to the WAL again: 1.15 GB written for SciFact's 5,183 documents, most of the ingestion's disk
 * traffic. In one transaction the shared pages (the documents table, its indexes, the jobs' indexes) are written
 * once per turn instead of once per document.
 *
 * A writer is told its write succeeded only after COMMIT, so nothing is reported durable before it is. The group
 * begins IMMEDIATE (the write lock is taken at once, so other processes wait at most one turn, within their
 * busy_timeout), and an explicit transaction runs inside it as a savepoint: the group never commits while one is
 * open, so a transaction that later rolls back is never half committed. Like a connection, a group has one user
 * at a time: no write() while a transaction is open (the Kysely driver's connection lock keeps them apart).
 */
export class WriteGroup {
  private open = false;
  private waiters: Waiter[] = [];
  /** Explicit transactions (savepoints) open inside the group. */
  private transactions = 0;

  /**
   * `file`: the database file, so that two connections of this process to one file never wait for each other (a
   * connection waiting for the write lock blocks the thread, and with it the other connection's commit).
   */
  constructor(
    private readonly db: GroupableDatabase,
    private readonly file: string,
  ) {}

  /** Runs `write` (synchronous statements) in the group's transaction; resolves with its result once the group commits. */
  write<T>(write: () => T): Promise<T> {
    try {
      this.begin();
      const result = write();
      return this.committed().then(() => result);
    } catch (err) {
      this.lostIfRolledBack(err);
      return Promise.reject(err);
    }
  }

  /** Resolves once no group is open (commits the open one now): call before closing the database. */
  async settled(): Promise<void> {
    if (this.open && this.transactions === 0) this.flush();
  }

  /** Opens an explicit transaction (a savepoint inside the group). */
  beginTransaction(name: string): void {
    this.begin();
    this.db.exec(`SAVEPOINT ${name}`);
    this.transactions++;
  }

  /** Ends an explicit transaction, keeping its writes; resolves once the group that holds them commits. */
  commitTransaction(name: string): Promise<void> {
    try {
      this.db.exec(`RELEASE ${name}`);
    } catch (err) {
      this.endTransaction();
      this.lostIfRolledBack(err);
      return Promise.reject(err);
    }
    this.endTransaction();
    return this.committed();
  }

  /** Ends an explicit transaction, undoing its writes (the group's other writes stay). */
  rollbackTransaction(name: string): void {
    if (!this.db.inTransaction) {
      this.lostIfRolledBack(new Error('the transaction was rolled back by SQLite'));
      return;
    }
    this.db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
    this.endTransaction();
  }

  private begin(): void {
    if (this.open) return;
    for (const other of openGroups) if (other !== this && other.file === this.file) other.flush();
    this.db.exec('BEGIN IMMEDIATE');
    this.open = true;
    if (this.file !== ':memory:') openGroups.add(this);
    setImmediate(() => this.flush());
  }

  private committed(): Promise<void> {
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** After the last open transaction ends, commit the group (a flush that came while it was open did nothing). */
  private endTransaction(): void {
    this.transactions--;
    if (this.transactions === 0 && this.open) setImmediate(() => this.flush());
  }

  /** Commits the group, unless an explicit transaction is still open (its end schedules the flush again). */
  private flush(): void {
    if (!this.open || this.transactions > 0) return;
    const waiters = this.close();
    try {
      this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const w of waiters) w.reject(err);
      return;
    }
    for (const w of waiters) w.resolve();
  }

  /** A statement error that rolled back the whole transaction (SQLite does so for I/O and full-disk errors) fails the group. */
  private lostIfRolledBack(err: unknown): void {
    if (!this.open || this.db.inTransaction) return;
    this.transactions = 0;
    for (const w of this.close()) w.reject(err);
  }

  /** Marks the group closed (no longer holding the write lock) and hands over its waiters. */
  private close(): Waiter[] {
    this.open = false;
    openGroups.delete(this);
    const waiters = this.waiters;
    this.waiters = [];
    return waiters;
  }
}
