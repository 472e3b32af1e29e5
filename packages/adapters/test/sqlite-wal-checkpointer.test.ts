import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from '@dossier/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWalCheckpointer } from '../src/sqlite/checkpointer.ts';
import { openSqlite, type SqliteConnection } from '../src/sqlite/driver.ts';
import { createSqliteJobQueue } from '../src/sqlite/job-queue.ts';

type Db = SqliteConnection;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dossier-wal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A WAL database whose own connection never checkpoints: only another connection can move pages into the file. */
function openWithoutCheckpoints(file: string): Db {
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
  return db;
}

/** 60 commits of a 4 KB row each: about 240 KB that stay in the log until a checkpoint copies them. */
function writeRows(db: Db): void {
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  for (let i = 0; i < 60; i++) insert.run(Buffer.alloc(4096, i));
}

describe('WAL checkpointer', () => {
  it('copies the pages a writer commits into the database file from its own thread, without the writer checkpointing', async () => {
    const file = join(dir, 'a.db');
    const db = openWithoutCheckpoints(file);
    const before = (await stat(file)).size;
    const checkpointer = startWalCheckpointer(file, 20);
    writeRows(db);
    expect(await waitFor(async () => (await stat(file)).size > before + 200_000, 'the pages in the database file', 5000)).toBe(true);
    await checkpointer.stop();
    await checkpointer.stop(); // twice is harmless
    db.close();
  });

  it('serves several files from its one thread: stopping one leaves the others checkpointed, and a later file starts it again', async () => {
    const files = ['one.db', 'two.db', 'three.db'].map((name) => join(dir, name));
    const [one, two] = files.slice(0, 2).map(openWithoutCheckpoints) as [Db, Db];
    const sizes = await Promise.all(files.slice(0, 2).map(async (file) => (await stat(file)).size));
    const first = startWalCheckpointer(files[0]!, 20);
    const second = startWalCheckpointer(files[1]!, 20);
    writeRows(one);
    writeRows(two);
    expect(
      await waitFor(
        async () => (await stat(files[0]!)).size > sizes[0]! + 200_000 && (await stat(files[1]!)).size > sizes[1]! + 200_000,
        'the pages in the database file',
        5000,
      ),
    ).toBe(true);
    await first.stop();
    const secondBefore = (await stat(files[1]!)).size;
    writeRows(two);
    expect(await waitFor(async () => (await stat(files[1]!)).size > secondBefore + 200_000, 'the pages in the database file', 5000)).toBe(true);
    await second.stop();
    // Every file stopped, the thread has ended; a new file gets a new one.
    const three = openWithoutCheckpoints(files[2]!);
    const threeBefore = (await stat(files[2]!)).size;
    const third = startWalCheckpointer(files[2]!, 20);
    writeRows(three);
    expect(await waitFor(async () => (await stat(files[2]!)).size > threeBefore + 200_000, 'the pages in the database file', 5000)).toBe(true);
    await third.stop();
    for (const db of [one, two, three]) db.close();
  });

  it('leaves the log alone when nobody starts one (the control for the test above)', async () => {
    const file = join(dir, 'b.db');
    const db = openWithoutCheckpoints(file);
    const before = (await stat(file)).size;
    writeRows(db);
    // A real wait is the behaviour: nothing may copy pages during ten of the checkpointer's 20 ms rounds.
    await new Promise((r) => setTimeout(r, 200));
    expect((await stat(file)).size).toBe(before);
    db.close();
  });

  it('runs beside a file-backed job queue and stops with its close, which removes the log', async () => {
    const file = join(dir, 'jobs.db');
    const queue = createSqliteJobQueue({ filename: file });
    for (let i = 0; i < 200; i++) await queue.enqueue({ type: 'noop', payload: { i, pad: 'x'.repeat(2000) } });
    // 400 KB of jobs reach the database file, far below the queue's own checkpoint threshold (FOREGROUND_CHECKPOINT_PAGES).
    expect(await waitFor(async () => (await stat(file)).size > 300_000, 'the pages in the database file', 5000)).toBe(true);
    await queue.close();
    // The last connection closed checkpointed the rest and removed the log.
    await expect(stat(`${file}-wal`)).rejects.toThrow();
  });

  it('keeps a script that awaits close() alive until the file is closed (nothing else pending: exit 13 before)', async () => {
    const queueModule = fileURLToPath(new URL('../src/sqlite/job-queue.ts', import.meta.url));
    const script = join(dir, 'close.mjs');
    await writeFile(
      script,
      `import { createSqliteJobQueue } from ${JSON.stringify(queueModule)};
const queue = createSqliteJobQueue({ filename: ${JSON.stringify(join(dir, 'script-jobs.db'))} });
await queue.enqueue({ type: 'noop', payload: {} });
await queue.close();
console.log('closed');`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      timeout: 60_000,
    });
    expect(stdout.trim()).toBe('closed');
  });
});
