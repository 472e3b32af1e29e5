import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MetadataStore } from '@dossier/core';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { createKyselyMetadataStore } from './kysely-store.ts';
import { migrateToLatest } from './migrations.ts';
import type { MetadataDatabase } from './schema.ts';
import { sqliteMetadataDialect } from './sqlite-dialect.ts';

export interface SqliteMetadataStoreOptions {
  /** Database file, created with its directory when missing; ':memory:' for a private in-memory store. */
  filename: string;
  /** How long a statement waits for another process's write lock (ms). Default 5000. */
  busyTimeoutMs?: number;
}

/** The part of better-sqlite3 this adapter uses: Kysely's statement API plus pragmas. */
interface BetterSqliteDatabase extends SqliteDatabase {
  pragma(source: string): unknown;
}
type BetterSqliteConstructor = new (filename: string) => BetterSqliteDatabase;

/** Load better-sqlite3 only when the store first connects, so importing the adapters costs nothing. */
async function openDatabase(opts: SqliteMetadataStoreOptions): Promise<BetterSqliteDatabase> {
  const mod = (await import('better-sqlite3')) as unknown as { default: BetterSqliteConstructor };
  if (opts.filename !== ':memory:' && opts.filename !== '') mkdirSync(dirname(opts.filename), { recursive: true });
  const db = new mod.default(opts.filename);
  // WAL lets readers in other processes (CLI, workers) proceed during writes; NORMAL sync is durable under WAL.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(opts.busyTimeoutMs ?? 5000))}`);
  return db;
}

/** A MetadataStore in one SQLite file (better-sqlite3 through Kysely). Call migrate() before use. */
export function createSqliteMetadataStore(opts: SqliteMetadataStoreOptions): MetadataStore {
  const db = new Kysely<MetadataDatabase>({
    dialect: new SqliteDialect({ database: () => openDatabase(opts) }),
  });
  return createKyselyMetadataStore(
    { db, dialect: sqliteMetadataDialect },
    { migrate: () => migrateToLatest(db as Kysely<unknown>), close: () => db.destroy() },
  );
}
