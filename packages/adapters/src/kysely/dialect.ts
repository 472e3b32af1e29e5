import type { JsonValue } from '@dossier/core';
import type { CompiledQuery, Expression, Kysely, QueryResult, RawBuilder, SqlBool } from 'kysely';
import type { DbBool, DbJson, MetadataDatabase } from './schema.ts';

/**
 * The few things the metadata queries cannot say in dialect-neutral Kysely: value encoding and JSON
 * predicates over the `documents` table, and per-key locks. SQLite implements them with json_each, Postgres with
 * jsonb operators; both run every query in this folder unchanged.
 */
export interface MetadataDialect {
  /** Encode a boolean for a DbBool column. */
  bool(value: boolean): DbBool;
  /** Encode a value for a DbJson column (canonical JSON: sorted keys, so equal values store equally). */
  json(value: JsonValue): DbJson;
  /** True when the `documents` row carries the tag. */
  hasTag(tag: string): Expression<SqlBool>;
  /** True when the `documents` row carries at least one of the (non-empty) tags. */
  hasAnyTag(tags: string[]): Expression<SqlBool>;
  /** True when the `documents` row's metadata has `key` with a value deep-equal to `value`. */
  metadataEquals(key: string, value: JsonValue): Expression<SqlBool>;
  /** True when the `documents` row's metadata is not the empty object. */
  hasMetadata(): Expression<SqlBool>;
  /**
   * A table function over the elements of a JSON array (a text parameter or a JSON expression), one row per element
   * in column `value`; read an element's parts with `->` (JSON) and `->>` (text), which both dialects share.
   */
  jsonArrayElements(array: Expression<unknown> | string): RawBuilder<unknown>;
  /** A table function over the entries of a JSON object (a text parameter), one row per entry in columns `key` and `value`. */
  jsonObjectEntries(object: string): RawBuilder<unknown>;
  /** Tag names of a collection's documents with document counts, count desc then name. */
  tagCounts(db: Kysely<MetadataDatabase>, collectionId: string): Promise<{ name: string; count: number }[]>;
  /** Bytes used on disk, 0 when unknown. */
  sizeBytes(db: Kysely<MetadataDatabase>): Promise<number>;
  /**
   * Inside a transaction: wait until no other transaction holds `key`, then hold it until this one ends. Checks
   * that read and then write (a spending cap, an idempotency claim) take it so concurrent callers go one at a time.
   */
  lockForTransaction(db: Kysely<MetadataDatabase>, key: string): Promise<void>;
  /** True when err is the driver's unique-constraint violation. */
  isUniqueViolation(err: unknown): boolean;
}

/**
 * Runs compiled statements (see statements.ts) past Kysely's connection machinery where the driver can: the SQLite
 * store's single connection (sqlite/grouped-dialect.ts). For the dozen small statements of a document's ingestion,
 * Kysely's executor, connection provider and driver wrapper made about ten promises and closures each, a fifth of the
 * store's allocation (issue 41). A lane may decline a statement (undefined): it then goes through Kysely as any query.
 */
export interface StatementLane {
  /** Runs the statement now on `db`'s connection when nothing else holds it, as Kysely would once it had it. */
  run(query: CompiledQuery): Promise<QueryResult<unknown>> | undefined;
  /** The lane of the transaction whose callback is running: its statements run at once on the transaction's connection. */
  inTransaction(): StatementLane;
  /**
   * Runs `work` in a transaction without Kysely's transaction machinery (a Kysely, executor and connection provider
   * per transaction), giving it a Kysely and a lane on the transaction's connection; undefined where the lane cannot
   * (the caller then uses Kysely's transaction).
   */
  transaction<T>(work: (db: Kysely<MetadataDatabase>, lane: StatementLane) => Promise<T>): Promise<T> | undefined;
}

/** What every query function in this folder works with. */
export interface StoreContext {
  db: Kysely<MetadataDatabase>;
  dialect: MetadataDialect;
  /** Where the driver has one (see StatementLane); without it statements go through Kysely. */
  lane?: StatementLane;
}
