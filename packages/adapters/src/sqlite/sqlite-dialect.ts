import type { JsonValue } from '@dossier/core';
import { canonicalJson } from '@dossier/core/internal';
import type { Expression, SqlBool } from 'kysely';
import { type Kysely, sql } from '../kysely/runtime.ts';
import type { MetadataDialect } from '../kysely/dialect.ts';
import type { MetadataDatabase } from '../kysely/schema.ts';

const tags = sql.ref('documents.tags');
const metadata = sql.ref('documents.metadata');

/**
 * json_each type and value test for one metadata value. Comparing by JSON type keeps `1`, `"1"` and `true`
 * distinct (json_extract alone maps true to 1). Containers compare as text: stored metadata is canonical
 * JSON, so json_each renders a nested value exactly as canonicalJson renders the filter's.
 */
function valueTest(value: JsonValue): Expression<SqlBool> {
  if (value === null) return sql<SqlBool>`m.type = 'null'`;
  if (typeof value === 'boolean') return sql<SqlBool>`m.type = ${value ? 'true' : 'false'}`;
  if (typeof value === 'number') return sql<SqlBool>`m.type in ('integer', 'real') and m.value = ${value}`;
  if (typeof value === 'string') return sql<SqlBool>`m.type = 'text' and m.value = ${value}`;
  const type = Array.isArray(value) ? 'array' : 'object';
  return sql<SqlBool>`m.type = ${type} and m.value = ${canonicalJson(value)}`;
}

async function tagCounts(db: Kysely<MetadataDatabase>, collectionId: string) {
  const { rows } = await sql<{ name: string; count: number }>`
    select t.value as name, count(distinct d.id) as count
    from documents d, json_each(d.tags) t
    where d.collection_id = ${collectionId}
    group by t.value
    order by count desc, name asc`.execute(db);
  return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
}

async function sizeBytes(db: Kysely<MetadataDatabase>): Promise<number> {
  const { rows } = await sql<{ size: number }>`
    select p.page_count * s.page_size as size from pragma_page_count() p, pragma_page_size() s`.execute(db);
  return Number(rows[0]?.size ?? 0);
}

/**
 * A unique or primary-key constraint failure: better-sqlite3 names SQLite's extended result code (`code`), node:sqlite
 * gives its number (`errcode`: SQLITE_CONSTRAINT_UNIQUE 2067, SQLITE_CONSTRAINT_PRIMARYKEY 1555).
 */
function isUniqueViolation(err: unknown): boolean {
  const { code, errcode } = (err ?? {}) as { code?: unknown; errcode?: unknown };
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || errcode === 2067 || errcode === 1555;
}

/** SQLite: booleans are INTEGER 0/1, JSON is TEXT queried with json_each. */
export const sqliteMetadataDialect: MetadataDialect = {
  bool: (value) => (value ? 1 : 0),
  json: (value) => canonicalJson(value),
  hasTag: (tag) => sql<SqlBool>`exists (select 1 from json_each(${tags}) where value = ${tag})`,
  hasAnyTag: (anyOf) => sql<SqlBool>`exists (select 1 from json_each(${tags}) where value in (${sql.join(anyOf)}))`,
  metadataEquals: (key, value) => sql<SqlBool>`exists (select 1 from json_each(${metadata}) m where m.key = ${key} and ${valueTest(value)})`,
  hasMetadata: () => sql<SqlBool>`${metadata} <> '{}'`,
  jsonArrayElements: (array) => sql`json_each(${array})`,
  jsonObjectEntries: (object) => sql`json_each(${object})`,
  tagCounts,
  sizeBytes,
  // One connection per process, and Kysely runs its transactions one after another: nothing else can interleave.
  lockForTransaction: async () => {},
  isUniqueViolation,
};
