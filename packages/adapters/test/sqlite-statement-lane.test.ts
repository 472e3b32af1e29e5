import { afterEach, describe, expect, it } from 'vitest';
import type { StoreContext } from '../src/kysely/dialect.ts';
import { Kysely, sql } from '../src/kysely/runtime.ts';
import type { MetadataDatabase } from '../src/kysely/schema.ts';
import { insertRows, runStatement, statement, transaction } from '../src/kysely/statements.ts';
import { openSqlite } from '../src/sqlite/driver.ts';
import { GroupedSqliteDialect } from '../src/sqlite/grouped-dialect.ts';
import { sqliteMetadataDialect } from '../src/sqlite/sqlite-dialect.ts';

// Issue 41: the store's hot statements are compiled once and run on SQLite's connection past Kysely's executor
// (kysely/statements.ts, sqlite/grouped-dialect.ts). These check the lane keeps Kysely's semantics.

const stores: Kysely<MetadataDatabase>[] = [];
afterEach(async () => {
  for (const db of stores.splice(0)) await db.destroy();
});

/** A store context (Kysely, dialect and lane) over an in-memory SQLite database with a toy table `t`. */
async function context(): Promise<StoreContext> {
  const grouped = new GroupedSqliteDialect(async () => openSqlite(':memory:'), ':memory:');
  const db = new Kysely<MetadataDatabase>({ dialect: grouped });
  stores.push(db);
  await sql`create table t (id text primary key, n integer)`.execute(db);
  return { db, dialect: sqliteMetadataDialect, lane: grouped.lane };
}

/** The toy table under a name Kysely's types know (the statements are typed by the store's schema). */
const T = 't' as 'document_images';
type Row = { id: string; n: number };
const rowsOf = async (ctx: StoreContext) => (await sql<Row>`select id, n from t order by id`.execute(ctx.db)).rows;
const insertOne = statement('test insert', (db, id: string, n: number) => db.insertInto(T).values({ id, position: n } as never));
const selectOne = statement('test select', (db, id: string) => db.selectFrom(T).selectAll().where('id', '=', id));

describe('compiled statements on the SQLite lane', () => {
  it("run with each call's values, through the lane and through Kysely alike", async () => {
    const ctx = await context();
    await sql`alter table t add column position integer`.execute(ctx.db);
    await insertOne(ctx, 'a', 1);
    await insertOne({ ...ctx, lane: undefined }, 'b', 2);
    expect(await selectOne(ctx, 'a')).toMatchObject([{ id: 'a', position: 1 }]);
    expect(await selectOne({ ...ctx, lane: undefined }, 'b')).toMatchObject([{ id: 'b', position: 2 }]);
    expect(await selectOne(ctx, 'c')).toEqual([]);
  });

  it('refuse a builder that inlines a value, since its SQL would vary with it', async () => {
    const ctx = await context();
    const inlined = (db: Kysely<MetadataDatabase>, slots: readonly unknown[]) =>
      db
        .selectFrom(T)
        .selectAll()
        .where('id', '=', sql.lit(String(slots[0])));
    await expect(runStatement(ctx, 'test inlined', ['a'], inlined)).rejects.toThrow(/not a bound parameter/);
  });

  it('insert rows of differing columns through the builder, with DEFAULT for the missing ones', async () => {
    const ctx = await context();
    await insertRows(ctx, T, [{ id: 'a', n: 1 }, { id: 'b' }] as never);
    await insertRows(ctx, T, [{ id: 'c', n: 3 }] as never);
    expect(await rowsOf(ctx)).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: null },
      { id: 'c', n: 3 },
    ]);
  });

  it('roll a failed transaction back, statements and builder queries alike, and keep serving', async () => {
    const ctx = await context();
    await insertRows(ctx, T, [{ id: 'a', n: 1 }] as never);
    const failed = transaction(ctx, async (tx) => {
      await tx.db.deleteFrom(T).execute();
      await insertRows(tx, T, [{ id: 'b', n: 2 }] as never);
      await insertRows(tx, T, [{ id: 'b', n: 3 }] as never); // primary key violation
    });
    await expect(failed).rejects.toThrow(/UNIQUE|PRIMARY/i);
    expect(await rowsOf(ctx)).toEqual([{ id: 'a', n: 1 }]);
    await transaction(ctx, async (tx) => insertRows(tx, T, [{ id: 'c', n: 3 }] as never));
    expect(await rowsOf(ctx)).toEqual([
      { id: 'a', n: 1 },
      { id: 'c', n: 3 },
    ]);
  });

  it('keep concurrent writers and transactions apart, each seeing its own writes', async () => {
    const ctx = await context();
    const work = Array.from({ length: 50 }, (_, i) =>
      i % 2
        ? insertRows(ctx, T, [{ id: `w${String(i).padStart(2, '0')}`, n: i }] as never)
        : transaction(ctx, async (tx) => {
            await insertRows(tx, T, [{ id: `t${String(i).padStart(2, '0')}`, n: i }] as never);
            await new Promise((resolve) => setImmediate(resolve)); // others queue for the connection meanwhile
            const mine = await tx.db
              .selectFrom(T)
              .select('id')
              .where('id', '=', `t${String(i).padStart(2, '0')}`)
              .execute();
            expect(mine).toHaveLength(1);
          }),
    );
    await Promise.all(work);
    expect(await rowsOf(ctx)).toHaveLength(50);
  });

  it('refuse a transaction inside a transaction, as Kysely does', async () => {
    const ctx = await context();
    await expect(transaction(ctx, (tx) => transaction(tx, async () => {}))).rejects.toThrow();
    await expect(ctx.db.transaction().execute((trx) => transaction({ ...ctx, db: trx }, async () => {}))).rejects.toThrow();
    await insertRows(ctx, T, [{ id: 'a', n: 1 }] as never);
    expect(await rowsOf(ctx)).toEqual([{ id: 'a', n: 1 }]);
  });

  it('fail a query of a transaction that has ended', async () => {
    const ctx = await context();
    let leaked: StoreContext | undefined;
    await transaction(ctx, async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.db.selectFrom(T).selectAll().execute()).rejects.toThrow(/ended/);
  });
});
