import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openSqlite, SQLITE_DRIVER_ENV, SQLITE_DRIVERS, type SqliteConnection, type SqliteDriverName, sqliteDriverName } from '../src/sqlite/driver.ts';
import { isReadOnly } from '../src/sqlite/node-sqlite.ts';
import { sqliteMetadataDialect } from '../src/sqlite/sqlite-dialect.ts';

// Issue 41: the embedded store runs on node:sqlite (Node 22.16+, nothing to compile) or better-sqlite3 (Node 20).
const base = mkdtempSync(join(tmpdir(), 'dossier-sqlite-driver-'));
let n = 0;
const open: SqliteConnection[] = [];
afterEach(() => {
  for (const db of open.splice(0).reverse()) db.close();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The drivers that load in this process (better-sqlite3's binary is built for one Node ABI; node:sqlite needs 22.16). */
const loadable = SQLITE_DRIVERS.filter((driver) => {
  try {
    openSqlite(':memory:', { driver }).close();
    return true;
  } catch {
    return false;
  }
});

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const hasNodeSqlite = major > 22 || (major === 22 && minor >= 16);

describe('choosing the SQLite driver', () => {
  it('uses node:sqlite on Node 22.16 and later, better-sqlite3 before', () => {
    expect(sqliteDriverName()).toBe(process.env[SQLITE_DRIVER_ENV] ?? (hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3'));
    expect(loadable).toContain(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
  });

  it(`lets ${SQLITE_DRIVER_ENV} force a driver and names the allowed values for any other`, () => {
    const before = process.env[SQLITE_DRIVER_ENV];
    try {
      process.env[SQLITE_DRIVER_ENV] = 'better-sqlite3';
      expect(sqliteDriverName()).toBe('better-sqlite3');
      process.env[SQLITE_DRIVER_ENV] = 'sqlite4';
      expect(() => sqliteDriverName()).toThrow(/DOSSIER_SQLITE_DRIVER must be one of node:sqlite, better-sqlite3/);
    } finally {
      if (before === undefined) delete process.env[SQLITE_DRIVER_ENV];
      else process.env[SQLITE_DRIVER_ENV] = before;
    }
  });

  it.runIf(hasNodeSqlite)('opens node:sqlite without printing its ExperimentalWarning', async () => {
    const driver = fileURLToPath(new URL('../src/sqlite/driver.ts', import.meta.url));
    const script = `import(${JSON.stringify(driver)}).then((m) => m.openSqlite(':memory:').close())`;
    const { stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, [SQLITE_DRIVER_ENV]: '' } });
    expect(stderr).not.toMatch(/ExperimentalWarning/);
  });
});

describe('which statements node:sqlite counts as read-only (it cannot ask SQLite)', () => {
  it('counts SELECT and a WITH that names no write as reads, and everything else as writes', () => {
    expect(isReadOnly('select * from t')).toBe(true);
    expect(isReadOnly('  with x as (select 1) select * from x')).toBe(true);
    expect(isReadOnly('with x as (select 1) delete from t where id in x')).toBe(false);
    expect(isReadOnly('insert into t (id) values (?) returning id')).toBe(false);
    expect(isReadOnly('pragma journal_mode')).toBe(false);
  });
});

describe.each(loadable)('SQLite driver %s', (driver: SqliteDriverName) => {
  const connect = (file = join(base, `db-${n++}.sqlite`), readonly = false) => {
    const db = openSqlite(file, { driver, readonly });
    open.push(db);
    return db;
  };
  const table = () => {
    const file = join(base, `db-${n++}.sqlite`);
    const db = connect(file);
    db.pragma('journal_mode = WAL');
    db.exec('create table t (id integer primary key, name text unique)');
    return { db, file };
  };

  it('tells readers from writers, and binds parameters given as one array (Kysely) or spread', () => {
    const { db } = table();
    const insert = db.prepare('insert into t (name) values (?)');
    const returning = db.prepare('insert into t (name) values (?) returning id');
    expect([insert.reader, insert.readonly, returning.reader, returning.readonly]).toEqual([false, false, true, false]);
    expect(insert.run(['a'])).toMatchObject({ changes: 1, lastInsertRowid: 1 });
    expect(returning.all('b')).toEqual([{ id: 2 }]);
    const select = db.prepare('select name from t where id > ? order by id');
    expect([select.reader, select.readonly]).toEqual([true, true]);
    expect(select.all([0])).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(select.get(1)).toEqual({ name: 'b' });
    expect([...select.iterate([0])]).toEqual([{ name: 'a' }, { name: 'b' }]);
  });

  it('commits a transaction, rolls it back on a throw, and nests one as a savepoint', () => {
    const { db } = table();
    const insert = db.prepare('insert into t (name) values (?)');
    const names = () => (db.prepare('select name from t order by id').all() as { name: string }[]).map((r) => r.name);
    db.transaction((name: string) => insert.run(name)).immediate('kept');
    const failing = db.transaction(() => {
      insert.run('undone');
      throw new Error('stop');
    });
    expect(() => failing.immediate()).toThrow('stop');
    db.transaction(() => {
      insert.run('outer');
      expect(() => failing.immediate()).toThrow('stop');
      expect(db.inTransaction).toBe(true);
    }).immediate();
    expect(names()).toEqual(['kept', 'outer']);
    expect(db.inTransaction).toBe(false);
  });

  it('reports a unique violation so the store recognises it', () => {
    const { db } = table();
    db.prepare('insert into t (name) values (?)').run('a');
    let error: unknown;
    try {
      db.prepare('insert into t (name) values (?)').run('a');
    } catch (err) {
      error = err;
    }
    expect(sqliteMetadataDialect.isUniqueViolation(error)).toBe(true);
    expect(sqliteMetadataDialect.isUniqueViolation(new Error('other'))).toBe(false);
  });

  it('keeps WAL and busy_timeout, lets readers read committed rows while a writer holds the lock, and times out a second writer', () => {
    const { db, file } = table();
    db.pragma('busy_timeout = 5000');
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    db.prepare('insert into t (name) values (?)').run('committed');
    db.exec('BEGIN IMMEDIATE');
    db.prepare('insert into t (name) values (?)').run('pending');
    const readers = [connect(file), connect(file)];
    for (const reader of readers) expect(reader.prepare('select name from t').all()).toEqual([{ name: 'committed' }]);
    const writer = connect(file);
    writer.pragma('busy_timeout = 20');
    expect(() => writer.exec('BEGIN IMMEDIATE')).toThrow(/locked|busy/i);
    db.exec('COMMIT');
    expect(readers[0]!.prepare('select count(*) as n from t').get()).toEqual({ n: 2 });
  });

  it('refuses writes on a connection opened read-only', () => {
    const { file } = table();
    const reader = connect(file, true);
    expect(() => reader.exec("insert into t (name) values ('x')")).toThrow(/readonly/i);
  });
});
