import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MetadataStore } from '@dossier/core';
import { metadataStoreSuite } from '@dossier/core/testing';
import { describe, expect, it } from 'vitest';
import { postgresMigrations } from '../src/kysely/migrations.ts';
import { createPostgresMetadataStore } from '../src/postgres/metadata-store.ts';
import { createSqliteMetadataStore } from '../src/sqlite/metadata-store.ts';
import { openSqlite } from '../src/sqlite/driver.ts';
import { databaseForTests } from './fixtures/postgres-database.ts';

/**
 * The Postgres metadata store (issue 13) against the machine's Postgres: the conformance suite SQLite passes, each
 * test on emptied tables of a database this file creates and drops.
 */

const opened: MetadataStore[] = [];
const { available, database } = await databaseForTests('dossier_meta', () => Promise.allSettled(opened.map((store) => store.close())));

interface Column {
  table_name: string;
  column_name: string;
  is_nullable: 'YES' | 'NO';
}

/** The columns of a migrated SQLite store, described as information_schema describes Postgres's. */
async function sqliteColumns(): Promise<Column[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-schema-'));
  try {
    const store = createSqliteMetadataStore({ filename: join(dir, 'metadata.sqlite') });
    await store.migrate();
    await store.close();
    const db = openSqlite(join(dir, 'metadata.sqlite'), { readonly: true });
    const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as { name: string }[];
    const columns = tables.flatMap(({ name }) =>
      (db.prepare(`select name, "notnull", pk from pragma_table_info(?)`).all(name) as { name: string; notnull: number; pk: number }[]).map(
        // A primary key column is NOT NULL in Postgres; SQLite only says so of INTEGER keys, but no key here is ever null.
        (c): Column => ({ table_name: name, column_name: c.name, is_nullable: c.notnull || c.pk ? 'NO' : 'YES' }),
      ),
    );
    db.close();
    return columns;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A store over `url`, closed with the database if a test leaves it open. */
function open(url: string): MetadataStore {
  const store = createPostgresMetadataStore({ connectionString: url, max: 4 });
  opened.push(store);
  return store;
}

/**
 * One migrated schema for the conformance tests, emptied before each: migrating afresh per test takes seconds, and
 * so does TRUNCATE (it makes new files for every table and index); deleting the few rows a test left is quick.
 */
let suiteSchema: Promise<{ schema: string; url: string; empty: string }> | undefined;

async function emptiedSchema(): Promise<{ schema: string; url: string }> {
  suiteSchema ??= (async () => {
    const { schema, url } = await database().freshSchema();
    const store = createPostgresMetadataStore({ connectionString: url, max: 1 });
    await store.migrate();
    await store.close();
    const rows = await database().query<{ name: string }>(
      `select quote_ident(schemaname) || '.' || quote_ident(tablename) as name from pg_tables
       where schemaname = $1 and tablename not like 'metadata_migrations%'`,
      [schema],
    );
    return { schema, url, empty: rows.map((r) => `DELETE FROM ${r.name};`).join(' ') };
  })();
  const { schema, url, empty } = await suiteSchema;
  await database().query(empty);
  return { schema, url };
}

describe.skipIf(!available)('Postgres MetadataStore', () => {
  metadataStoreSuite('postgres', async () => open((await emptiedSchema()).url), {
    persistentLocation: async () => {
      const { url } = await emptiedSchema();
      return async () => open(url);
    },
  });

  it('records each applied migration once when several nodes migrate at once', async () => {
    const { schema, url } = await database().freshSchema();
    await Promise.all([open(url), open(url), open(url)].map((store) => store.migrate()));
    const rows = await database().query<{ name: string }>(`select name from ${schema}.metadata_migrations order by name`);
    expect(rows.map((r) => r.name)).toEqual(Object.keys(postgresMigrations).sort());
  });

  it('has the tables and columns of the SQLite store, with the same nullability', async () => {
    const { schema } = await emptiedSchema();
    const pgColumns = await database().query<Column>(`select table_name, column_name, is_nullable from information_schema.columns where table_schema = $1`, [
      schema,
    ]);
    const shape = (rows: Column[]) => rows.map((r) => `${r.table_name}.${r.column_name}${r.is_nullable === 'YES' ? '?' : ''}`).sort();
    expect(shape(pgColumns)).toEqual(shape(await sqliteColumns()));
  });

  it('reports the bytes its tables use', async () => {
    const store = open((await emptiedSchema()).url);
    await store.migrate();
    expect(await store.sizeBytes()).toBeGreaterThan(0);
  });
});
