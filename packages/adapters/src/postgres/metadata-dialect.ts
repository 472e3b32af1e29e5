import type { JsonValue } from '@dossier/core';
import { canonicalJson } from '@dossier/core/internal';
import type { SqlBool } from 'kysely';
import { type Kysely, sql } from '../kysely/runtime.ts';
import type { MetadataDialect } from '../kysely/dialect.ts';
import type { MetadataDatabase } from '../kysely/schema.ts';

const tags = sql.ref('documents.tags');
const metadata = sql.ref('documents.metadata');

/** A JSON parameter as jsonb (the driver would send a JS array as a Postgres array, so it goes as text). */
const jsonb = (value: JsonValue) => sql`${canonicalJson(value)}::jsonb`;

async function tagCounts(db: Kysely<MetadataDatabase>, collectionId: string) {
  // collate "C": names sort by code point, as SQLite's binary collation sorts them, whatever the database's locale.
  const { rows } = await sql<{ name: string; count: number }>`
    select t.name, count(distinct d.id) as count
    from documents d, jsonb_array_elements_text(d.tags) as t(name)
    where d.collection_id = ${collectionId}
    group by t.name
    order by count desc, t.name collate "C" asc`.execute(db);
  return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
}

/** Bytes of this store's tables with their indexes and TOAST data, in the schema it works in. */
async function sizeBytes(db: Kysely<MetadataDatabase>): Promise<number> {
  const { rows } = await sql<{ size: string | number | null }>`
    select sum(pg_total_relation_size(c.oid)) as size
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r'`.execute(db);
  return Number(rows[0]?.size ?? 0);
}

/** A transaction-scoped advisory lock on the key's 64-bit hash (a collision only makes two keys wait for each other). */
async function lockForTransaction(db: Kysely<MetadataDatabase>, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
}

/** SQLSTATE 23505: unique_violation. */
const isUniqueViolation = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === '23505';

/**
 * Postgres: BOOLEAN columns and JSONB queried with its operators. Equality of jsonb values is deep and typed, so
 * `1`, `"1"` and `true` stay distinct and object key order does not matter, as with SQLite's json_each test.
 */
export const postgresMetadataDialect: MetadataDialect = {
  bool: (value) => value,
  json: (value) => canonicalJson(value),
  hasTag: (tag) => sql<SqlBool>`${tags} @> ${jsonb([tag])}`,
  hasAnyTag: (anyOf) => sql<SqlBool>`jsonb_exists_any(${tags}, ${anyOf}::text[])`,
  metadataEquals: (key, value) => sql<SqlBool>`(${metadata} -> ${key}) = ${jsonb(value)}`,
  hasMetadata: () => sql<SqlBool>`${metadata} <> '{}'::jsonb`,
  jsonArrayElements: (array) => sql`jsonb_array_elements((${array})::jsonb)`,
  jsonObjectEntries: (object) => sql`jsonb_each(${object}::jsonb)`,
  tagCounts,
  sizeBytes,
  lockForTransaction,
  isUniqueViolation,
};
