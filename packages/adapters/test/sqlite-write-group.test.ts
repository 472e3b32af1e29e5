import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteConnection } from '../src/sqlite/driver.ts';
import { WriteGroup } from '../src/sqlite/write-group.ts';

type Db = SqliteConnection;

const dirs: string[] = [];
const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real SQLite file in WAL mode with a table `t (id PRIMARY KEY)`, and a connection to it that counts COMMITs. */
function database(file = join(fresh(), 'db.sqlite')) {
  const db = openSqlite(file);
  open.push(db);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY)');
  const counted = {
    commits: 0,
    exec(sql: string) {
      if (sql === 'COMMIT') counted.commits++;
      return db.exec(sql);
    },
    get inTransaction() {
      return db.inTransaction;
    },
  };
  const insert = (id: string) => () => db.prepare('INSERT INTO t (id) VALUES (?)').run(id).changes;
  const ids = () => (db.prepare('SELECT id FROM t ORDER BY id').all() as { id: string }[]).map((r) => r.id);
  return { db, counted, insert, ids, file };
}

function fresh(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-write-group-'));
  dirs.push(dir);
  return dir;
}

/** What another connection (reading only committed data) sees. */
function committedIds(file: string): string[] {
  const reader = openSqlite(file);
  try {
    return (reader.prepare('SELECT id FROM t ORDER BY id').all() as { id: string }[]).map((r) => r.id);
  } finally {
    reader.close();
  }
}

describe('WriteGroup', () => {
  it('commits the writes of one turn together and resolves each writer once they are committed', async () => {
    const { counted, insert, file } = database();
    const group = new WriteGroup(counted, file);
    const writes = [group.write(insert('a')), group.write(insert('b')), group.write(insert('c'))];
    expect(committedIds(file)).toEqual([]); // not committed yet: nobody was told it was
    expect(await Promise.all(writes)).toEqual([1, 1, 1]);
    expect(counted.commits).toBe(1);
    expect(counted.inTransaction).toBe(false);
    expect(committedIds(file)).toEqual(['a', 'b', 'c']);
  });

  it('a failing statement rejects its writer only; the rest of the group commits', async () => {
    const { counted, insert, ids, file } = database();
    const group = new WriteGroup(counted, file);
    await group.write(insert('a'));
    const results = await Promise.allSettled([group.write(insert('b')), group.write(insert('a')), group.write(insert('c'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(ids()).toEqual(['a', 'b', 'c']);
    expect(committedIds(file)).toEqual(['a', 'b', 'c']);
  });

  it('never commits inside an open transaction; a rolled-back transaction keeps the other writes of its group', async () => {
    const { counted, insert, file } = database();
    const group = new WriteGroup(counted, file);
    const before = group.write(insert('a')); // the connection's holder finished it before the transaction began
    group.beginTransaction('tx');
    insert('x')();
    // Several turns pass with the transaction open: the group's flush (scheduled with setImmediate) has had its chance.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(counted.commits).toBe(0);
    group.rollbackTransaction('tx');
    await before;
    expect(committedIds(file)).toEqual(['a']);
    group.beginTransaction('tx');
    insert('y')();
    await group.commitTransaction('tx');
    expect(committedIds(file)).toEqual(['a', 'y']);
  });

  it('two connections of one process to one file commit in turn instead of waiting for each other', async () => {
    const first = database();
    const second = database(first.file);
    const a = new WriteGroup(first.counted, first.file);
    const b = new WriteGroup(second.counted, first.file);
    const started = performance.now();
    const writes = [a.write(first.insert('a')), b.write(second.insert('b')), a.write(first.insert('c'))];
    await Promise.all(writes);
    expect(performance.now() - started).toBeLessThan(1000); // the busy timeout is 5 s
    expect(committedIds(first.file)).toEqual(['a', 'b', 'c']);
  });

  it('settled() commits the open group at once, so a database can be closed after it', async () => {
    const { counted, insert, file } = database();
    const group = new WriteGroup(counted, file);
    const write = group.write(insert('a'));
    await group.settled();
    expect(committedIds(file)).toEqual(['a']);
    await write;
  });
});
