import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { MetadataStore } from '@dossier/core';
import { Kysely } from '../kysely/runtime.ts';
import { createKyselyMetadataStore } from '../kysely/kysely-store.ts';
import { migrateToLatest, sqliteMigrations } from '../kysely/migrations.ts';
import type { MetadataDatabase } from '../kysely/schema.ts';
import { checkpointInBackground, type WalCheckpointer } from './checkpointer.ts';
import { isInMemory, openWalSqlite, type SqliteConnection, type SqliteStatement } from './driver.ts';
import { type GroupedDatabase, GroupedSqliteDialect } from './grouped-dialect.ts';
import { sqliteMetadataDialect } from './sqlite-dialect.ts';

export interface SqliteMetadataStoreOptions {
  /** Database file, created with its directory when missing; ':memory:' for a private in-memory store. */
  filename: string;
  /** How long a statement waits for another process's write lock (ms). Default 5000. */
  busyTimeoutMs?: number;
}

/** The connection as the store uses it: Kysely's statement API plus pragmas. */
interface StoreDatabase extends GroupedDatabase {
  pragma(source: string): unknown;
}

/** Open the SQLite driver only when the store first connects, so importing the adapters costs nothing. */
async function openDatabase(opts: SqliteMetadataStoreOptions): Promise<StoreDatabase> {
  if (!isInMemory(opts.filename)) mkdirSync(dirname(opts.filename), { recursive: true });
  // Readers in other processes (CLI, workers) go on during writes.
  const db = openWalSqlite(opts.filename, opts.busyTimeoutMs);
  db.pragma('foreign_keys = ON');
  return withStatementCache(db, checkpointInBackground(db, opts.filename));
}

/** Distinct SQL texts whose prepared statements are kept; past it the cache starts over. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * The database with its prepared statements reused by SQL text. Kysely prepares every query it runs, and SQLite's
 * compile step was the largest single cost of a small document's ingestion on the event loop (profiled on SciFact).
 * A statement still iterating (busy) is never handed out twice.
 */
function withStatementCache(db: SqliteConnection, checkpointer: WalCheckpointer | null): StoreDatabase {
  const cache = new Map<string, SqliteStatement & { busy?: boolean }>();
  const prepare = (sql: string) => {
    const hit = cache.get(sql);
    if (hit && !hit.busy) return hit;
    const stmt = db.prepare(sql);
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
    if (!hit) cache.set(sql, stmt);
    return stmt;
  };
  return {
    prepare,
    // The checkpointer first: the connection closed last checkpoints what is left and removes the log.
    close: async () => {
      await checkpointer?.stop();
      db.close();
    },
    pragma: (source: string) => db.pragma(source),
    exec: (source: string) => db.exec(source),
    get inTransaction() {
      return db.inTransaction;
    },
  };
}

/** A MetadataStore in one SQLite file (node:sqlite or better-sqlite3, see driver.ts, through Kysely). Call migrate() before use. */
export function createSqliteMetadataStore(opts: SqliteMetadataStoreOptions): MetadataStore {
  const grouped = new GroupedSqliteDialect(() => openDatabase(opts), isInMemory(opts.filename) ? ':memory:' : resolve(opts.filename));
  const db = new Kysely<MetadataDatabase>({ dialect: grouped });
  return createKyselyMetadataStore(
    { db, dialect: sqliteMetadataDialect, lane: grouped.lane },
    { migrate: () => migrateToLatest(db as Kysely<unknown>, sqliteMigrations), close: () => db.destroy() },
  );
}
