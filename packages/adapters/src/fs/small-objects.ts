import { resolve } from 'node:path';
import { checkpointInBackground, type WalCheckpointer } from '../sqlite/checkpointer.ts';
import { openWalSqlite, type SqliteConnection, type SqliteStatement } from '../sqlite/driver.ts';
import { WriteGroup } from '../sqlite/write-group.ts';

/**
 * Small objects of the filesystem blob store as rows of one SQLite file (createFsBlobStore's `small`).
 * Storing a small original as a file took about ten file-system calls (a folder, a temporary file, its write, close
 * and rename; an open, stat, two reads and a close to read it back), each 25–200 µs of kernel time on the machines
 * measured, two of them on libuv's pool with a thread hand-off each way: a quarter of the CPU of ingesting SciFact
 * through the library. A row costs a statement in a write group that commits once per turn of the event loop, with
 * the same durability as an unflushed file (WAL with synchronous=NORMAL: safe from a crash of the process, not from a
 * power cut), and a read is one indexed SELECT.
 */
export interface SmallObjects {
  /** The object's bytes, or null when no row holds it. */
  get(key: string): Uint8Array | null;
  /** The object's size, or null when no row holds it. */
  size(key: string): number | null;
  /** Stores (or replaces) the object; resolves once its write group commits. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** Removes the object's row; resolves with whether there was one, once committed. */
  delete(key: string): Promise<boolean>;
  /** Gives the row of `fromKey` the key `toKey`, replacing a row there; resolves with whether `fromKey` had one. */
  move(fromKey: string, toKey: string): Promise<boolean>;
  /** Removes every row whose key starts with `prefix`. */
  deletePrefix(prefix: string): Promise<void>;
  /** Bytes held by rows whose key starts with `prefix`. */
  sizeOfPrefix(prefix: string): number;
  /** The keys of the rows whose key starts with `prefix`, in order (what is stored where, for checks). */
  keys(prefix: string): string[];
  /** Commits what is pending and closes the file. */
  close(): Promise<void>;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS small_objects (key TEXT PRIMARY KEY, size INTEGER NOT NULL, bytes BLOB NOT NULL)`;

/** The keys starting with `prefix`, as a range of the primary key (BINARY collation orders keys as their bytes). */
function prefixRange(prefix: string): [string, string] {
  if (prefix === '') return ['', String.fromCodePoint(0x10ffff)]; // every key: U+10FFFF is the largest character
  const last = prefix.length - 1;
  return [prefix, prefix.slice(0, last) + String.fromCharCode(prefix.charCodeAt(last) + 1)];
}

interface Opened {
  db: SqliteConnection;
  group: WriteGroup;
  checkpointer: WalCheckpointer | null;
  statements: Record<'get' | 'size' | 'put' | 'delete' | 'move' | 'deleteRange' | 'sizeOfRange' | 'keysOfRange', SqliteStatement>;
}

function open(file: string): Opened {
  const db = openWalSqlite(file); // several processes may share a data directory
  db.exec(SCHEMA);
  const statements = {
    get: db.prepare('SELECT bytes FROM small_objects WHERE key = ?'),
    size: db.prepare('SELECT size FROM small_objects WHERE key = ?'),
    put: db.prepare('INSERT OR REPLACE INTO small_objects (key, size, bytes) VALUES (?, ?, ?)'),
    delete: db.prepare('DELETE FROM small_objects WHERE key = ?'),
    move: db.prepare('UPDATE OR REPLACE small_objects SET key = ? WHERE key = ?'),
    deleteRange: db.prepare('DELETE FROM small_objects WHERE key >= ? AND key < ?'),
    sizeOfRange: db.prepare('SELECT COALESCE(SUM(size), 0) AS total FROM small_objects WHERE key >= ? AND key < ?'),
    keysOfRange: db.prepare('SELECT key FROM small_objects WHERE key >= ? AND key < ? ORDER BY key'),
  };
  return { db, group: new WriteGroup(db, file), checkpointer: checkpointInBackground(db, file), statements };
}

/** The small objects kept in `file` (created, with its table, on first use). */
export function openSmallObjects(file: string): SmallObjects {
  const path = resolve(file);
  let opened: Opened | undefined;
  let closed = false;
  const use = (): Opened => {
    if (closed) throw new Error('The small-object store is closed');
    opened ??= open(path);
    return opened;
  };
  const write = <T>(run: (s: Opened['statements']) => T): Promise<T> => {
    const { group, statements } = use();
    return group.write(() => run(statements));
  };
  return {
    get(key) {
      const row = use().statements.get.get(key) as { bytes: Uint8Array } | undefined;
      return row ? new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : null;
    },
    size(key) {
      const row = use().statements.size.get(key) as { size: number } | undefined;
      return row ? Number(row.size) : null;
    },
    put: async (key, data) => void (await write((s) => s.put.run(key, data.byteLength, Buffer.from(data.buffer, data.byteOffset, data.byteLength)))),
    delete: (key) => write((s) => Number(s.delete.run(key).changes) > 0),
    move: (fromKey, toKey) => write((s) => Number(s.move.run(toKey, fromKey).changes) > 0),
    deletePrefix: async (prefix) => void (await write((s) => s.deleteRange.run(...prefixRange(prefix)))),
    sizeOfPrefix(prefix) {
      const row = use().statements.sizeOfRange.get(...prefixRange(prefix)) as { total: number | bigint };
      return Number(row.total);
    },
    keys: (prefix) => (use().statements.keysOfRange.all(...prefixRange(prefix)) as { key: string }[]).map((row) => row.key),
    async close() {
      if (closed) return;
      closed = true;
      if (!opened) return;
      await opened.group.settled();
      await opened.checkpointer?.stop();
      opened.db.close();
    },
  };
}
