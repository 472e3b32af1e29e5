import type { Compilable, CompiledQuery, Insertable, QueryResult } from 'kysely';
import { writeInSlices } from './batches.ts';
import type { MetadataDialect, StoreContext } from './dialect.ts';
import type { Kysely } from './runtime.ts';
import type { MetadataDatabase } from './schema.ts';

/** Stands for a statement's value while the statement is compiled; each run puts the value in its place. */
class Slot {
  constructor(readonly index: number) {}
}

/** A statement's SQL with, for each bound parameter, the value it takes: a run's value (by index) or a constant. */
interface CompiledStatement {
  query: CompiledQuery;
  /** Per bound parameter: the index of the run's value, or -1 for the constant in `query.parameters`. */
  valueIndex: number[];
}

/** Builds a statement from stand-ins for its values (Kysely's builders, written as for any query). */
export type StatementBuilder<O> = (db: Kysely<MetadataDatabase>, slots: readonly unknown[]) => Compilable<O>;

/** Compiled statements by dialect (the SQL text depends only on it), then by shape. */
const compiled = new WeakMap<MetadataDialect, Map<string, CompiledStatement>>();

/** Shapes kept per dialect: far more than the store has; a shape key that varies without bound starts the cache over. */
const MAX_SHAPES = 1000;

/** Statements made by `statement`, numbered so that two of one name never share a shape. */
let statements = 0;

/**
 * Runs a statement with `values`, building and compiling it only the first time its `shape` runs on a dialect. Kysely
 * builds a query's tree and compiles it to SQL on every call: for the dozen small statements of a document's ingestion
 * that was a third of the SQLite store's main-thread CPU and most of its allocation (issue 41). `build` gets stand-ins
 * for `values`, in order, and must make SQL that does not depend on them: `shape` names whatever else it depends on
 * (a column list, a row count), and is unique to the statement in the store. Every value must become a bound parameter
 * (checked when compiling).
 */
export function runStatement<O>(ctx: StoreContext, shape: string, values: readonly unknown[], build: StatementBuilder<O>): Promise<O[]> {
  let query: CompiledQuery;
  try {
    query = withValues(compiledStatement(ctx, shape, values.length, build), values);
  } catch (err) {
    return Promise.reject(err);
  }
  return (ctx.lane?.run(query) ?? ctx.db.executeQuery(query)).then(rowsOf) as Promise<O[]>;
}

const rowsOf = (result: QueryResult<unknown>) => result.rows;

/** The compiled query with this run's values in their parameters' places. */
function withValues({ query, valueIndex }: CompiledStatement, values: readonly unknown[]): CompiledQuery {
  const parameters = new Array<unknown>(valueIndex.length);
  for (let position = 0; position < valueIndex.length; position++) {
    const index = valueIndex[position]!;
    parameters[position] = index < 0 ? query.parameters[position] : values[index];
  }
  return { query: query.query, queryId: query.queryId, sql: query.sql, parameters };
}

/**
 * Runs `work` in a transaction of `ctx.db`, with a context for the transaction (its Kysely and its lane, see
 * StatementLane). `work` awaits each query before starting the next, as everywhere in this folder: a lane runs a
 * statement at once, so it could overtake a builder's query that Kysely still holds back until an earlier one settles.
 */
export function transaction<T>(ctx: StoreContext, work: (tx: StoreContext) => Promise<T>): Promise<T> {
  // Inside a Kysely transaction, Kysely's transaction() refuses as it always did (no nesting).
  const inLane = ctx.db.isTransaction ? undefined : ctx.lane?.transaction((db, lane) => work({ ...ctx, db, lane }));
  return inLane ?? ctx.db.transaction().execute((trx) => work({ ...ctx, db: trx, lane: ctx.lane?.inTransaction() }));
}

/**
 * A statement of fixed shape as a function of its values: `build` takes the values as arguments (stand-ins while it
 * compiles, see runStatement), so it reads like the query it replaces.
 */
export function statement<A extends unknown[], O>(name: string, build: (db: Kysely<MetadataDatabase>, ...args: A) => Compilable<O>) {
  const shape = `${name} #${++statements}`;
  const fromSlots: StatementBuilder<O> = (db, slots) => build(db, ...(slots as A));
  return (ctx: StoreContext, ...args: A): Promise<O[]> => runStatement(ctx, shape, args, fromSlots);
}

function compiledStatement<O>(ctx: StoreContext, shape: string, valueCount: number, build: StatementBuilder<O>): CompiledStatement {
  let shapes = compiled.get(ctx.dialect);
  if (!shapes) {
    shapes = new Map();
    compiled.set(ctx.dialect, shapes);
  }
  const known = shapes.get(shape);
  if (known) return known;
  const slots = Array.from({ length: valueCount }, (_, index) => new Slot(index));
  const query = build(ctx.db, slots).compile();
  const valueIndex = query.parameters.map((parameter) => (parameter instanceof Slot ? parameter.index : -1));
  for (let index = 0; index < valueCount; index++) {
    if (!valueIndex.includes(index)) throw new Error(`Statement ${shape}: value ${index} is not a bound parameter, so its SQL would vary with it`);
  }
  if (shapes.size >= MAX_SHAPES) shapes.clear();
  const statement = { query, valueIndex };
  shapes.set(shape, statement);
  return statement;
}

/**
 * A row whose columns hold stand-ins (see runStatement), slots from `offset` on in column order: build the row of an
 * insert or update whose shape is its column list. Typed as the row it stands for.
 */
export function rowOfSlots<R extends object>(columns: readonly (keyof R & string)[], slots: readonly unknown[], offset = 0): R {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) row[columns[i]!] = slots[offset + i];
  return row as R;
}

/**
 * Inserts rows into `table` in one statement compiled once per column list and row count (see runStatement). Rows
 * must share their columns, with no value undefined (Kysely writes DEFAULT for those): otherwise they go through
 * Kysely's builder as before.
 */
export async function insertRows<T extends keyof MetadataDatabase & string>(
  ctx: StoreContext,
  table: T,
  inserted: readonly Insertable<MetadataDatabase[T]>[],
): Promise<void> {
  const rows = inserted as readonly Record<string, unknown>[];
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const values: unknown[] = [];
  for (const row of rows) {
    if (Object.keys(row).length !== columns.length) return insertWithBuilder(ctx, table, rows);
    for (const column of columns) {
      const value = row[column];
      if (value === undefined) return insertWithBuilder(ctx, table, rows);
      values.push(value);
    }
  }
  await runStatement(ctx, `insert ${table} ${rows.length} ${columns}`, values, (db, slots) =>
    db.insertInto(table).values(rows.map((_, index) => rowOfSlots<Record<string, unknown>>(columns, slots, index * columns.length)) as never),
  );
}

async function insertWithBuilder(ctx: StoreContext, table: keyof MetadataDatabase & string, rows: readonly Record<string, unknown>[]): Promise<void> {
  await ctx.db
    .insertInto(table)
    .values(rows as never)
    .execute();
}

/**
 * Replaces a document's rows of `table`: `remove` deletes the old ones, then `rows` are inserted in slices of `batch`
 * (see writeInSlices). With no rows the delete alone runs, atomic by itself: a transaction (a savepoint in SQLite's
 * write group) only when rows follow.
 */
export async function replaceDocumentRows<T extends keyof MetadataDatabase & string>(
  ctx: StoreContext,
  documentId: string,
  remove: (ctx: StoreContext, documentId: string) => Promise<unknown>,
  table: T,
  rows: Insertable<MetadataDatabase[T]>[],
  batch: number,
): Promise<void> {
  if (rows.length === 0) {
    await remove(ctx, documentId);
    return;
  }
  await transaction(ctx, async (tx) => {
    await remove(tx, documentId);
    await writeInSlices(rows, batch, (slice) => insertRows(tx, table, slice));
  });
}
