import type { MetadataStore } from '@dossier/core';
import { Kysely, PostgresDialect, sql } from '../kysely/runtime.ts';
import type { Pool } from 'pg';
import { createKyselyMetadataStore } from '../kysely/kysely-store.ts';
import { migrateToLatest, postgresMigrations } from '../kysely/migrations.ts';
import type { MetadataDatabase } from '../kysely/schema.ts';
import { postgresMetadataDialect } from './metadata-dialect.ts';
import { importOptional } from '../optional.ts';

export interface PostgresMetadataStoreOptions {
  /** `postgres://user:password@host:5432/database`; `?options=-c%20search_path%3D<schema>` puts the tables in a schema. */
  connectionString: string;
  /** Connections in the pool. Default 10. */
  max?: number;
}

/** OIDs of BIGINT and NUMERIC: whole numbers (counts, sums, BIGINT columns) come back as numbers, not strings. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Load pg only when the store first connects, so importing the adapters costs nothing. */
async function openPool(opts: PostgresMetadataStoreOptions): Promise<Pool> {
  const { default: pg } = await importOptional<typeof import('pg')>('pg', 'The Postgres metadata store (DOSSIER_DATABASE_URL)');
  const asNumber = (value: string) => Number(value);
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID ? asNumber : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection the server drops (a restart, a failover) is replaced on next use; it must not crash the process.
  pool.on('error', () => {});
  return pool;
}

/** Migrate the schema the connections work in (the first of their search_path, `public` by default). */
async function migrate(db: Kysely<MetadataDatabase>): Promise<void> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  await migrateToLatest(db as Kysely<unknown>, postgresMigrations, rows[0]?.schema);
}

/**
 * A MetadataStore on Postgres (issue 13): the same Kysely queries as the SQLite store, through Kysely's Postgres
 * dialect over `pg`, so several server nodes share one store. Call migrate() before use; concurrent first starts
 * migrate one after the other (Kysely's Migrator holds an advisory lock).
 */
export function createPostgresMetadataStore(opts: PostgresMetadataStoreOptions): MetadataStore {
  const db = new Kysely<MetadataDatabase>({ dialect: new PostgresDialect({ pool: () => openPool(opts) }) });
  return createKyselyMetadataStore({ db, dialect: postgresMetadataDialect }, { migrate: () => migrate(db), close: () => db.destroy() });
}
