import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BACKGROUND_THREAD_NICENESS } from '../pool/lower-priority.ts';
import { isInMemory, sqliteWorkerDriverPath } from './driver.ts';

/**
 * How often the background thread copies a database's write-ahead log back into the database file. A page written
 * many times between two checkpoints is copied once: at 200 ms the thread spent ~0.2 ms of CPU per SciFact document
 * on the three files of an ingest (dossier.db, jobs.db, blobs.db); at 1 s the whole build took 3.50 ms of CPU per
 * document instead of 3.66 (medians of four interleaved pairs, issue 41, bench/RESULTS.md). The log holds about a second of writes.
 */
export const CHECKPOINT_INTERVAL_MS = 1000;

/**
 * WAL pages at which a committing connection checkpoints by itself (SQLite's wal_autocheckpoint; its default is
 * 1,000). Only a backstop for when the background thread falls behind: a checkpoint in a commit runs on the event loop.
 */
const FOREGROUND_CHECKPOINT_PAGES = 16_000;

/** A database file's background checkpointer; `stop` runs a last checkpoint and closes its connection. */
export interface WalCheckpointer {
  stop(): Promise<void>;
}

/**
 * The worker: a connection of its own to each file it is given, and a PASSIVE checkpoint of each every interval (it
 * never waits for a lock and never blocks a writer or a reader), at background niceness on Linux. Plain CommonJS so
 * that it runs the same from source and installed. A file it cannot open is left to the backstop.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const threadId = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').at(-1));
  if (Number.isInteger(threadId) && threadId !== process.pid) require('node:os').setPriority(threadId, workerData.niceness);
} catch {}
const Database = workerData.driverPath ? require(workerData.driverPath) : nodeSqlite();
// node:sqlite behind the two methods used here; its ExperimentalWarning (and only it) kept quiet, as in node-sqlite.ts.
function nodeSqlite() {
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    if (!/^SQLite is an experimental feature/.test(String(warning?.message ?? warning))) emitWarning.call(process, warning, ...rest);
  };
  try {
    const { DatabaseSync } = require('node:sqlite');
    return class {
      constructor(file) { this.db = new DatabaseSync(file); }
      pragma(source) { this.db.exec('PRAGMA ' + source); }
      close() { this.db.close(); }
    };
  } finally {
    process.emitWarning = emitWarning;
  }
}
const open = new Map();
const checkpoint = (db) => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
parentPort.on('message', (message) => {
  if (message.add !== undefined) {
    try {
      const db = new Database(message.file);
      db.pragma('busy_timeout = 0');
      open.set(message.add, { db, timer: setInterval(() => checkpoint(db), message.intervalMs) });
    } catch {}
  } else if (message.remove !== undefined) {
    const file = open.get(message.remove);
    open.delete(message.remove);
    if (file) {
      clearInterval(file.timer);
      checkpoint(file.db);
      file.db.close();
    }
    parentPort.postMessage({ removed: message.remove });
  } else if (message.exit) parentPort.close();
});
`;

/** The process's checkpointer thread, shared by every file (one thread, not one per database: each costs ~10 MiB). */
interface CheckpointThread {
  worker: Worker;
  files: number;
  alive: boolean;
  /** Files being stopped: resolved when the thread has checkpointed and closed them. */
  stopping: Map<number, () => void>;
}

let current: CheckpointThread | null = null;
let nextFileId = 0;

function checkpointThread(): CheckpointThread {
  if (current) return current;
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driverPath: sqliteWorkerDriverPath(), niceness: BACKGROUND_THREAD_NICENESS } });
  worker.unref(); // a store left open never keeps the process alive
  const thread: CheckpointThread = { worker, files: 0, alive: true, stopping: new Map() };
  worker.on('message', ({ removed }: { removed: number }) => {
    thread.stopping.get(removed)?.();
    thread.stopping.delete(removed);
    if (thread.stopping.size === 0) worker.unref();
  });
  const gone = () => {
    thread.alive = false;
    for (const done of thread.stopping.values()) done(); // a thread that failed or ended leaves the backstop in charge
    thread.stopping.clear();
    if (current === thread) current = null;
  };
  worker.once('exit', gone);
  worker.once('error', gone);
  current = thread;
  return thread;
}

/**
 * Checkpoints the write-ahead log of an SQLite file (already in WAL mode) from a background thread, one for the
 * process. A checkpoint copies the log's pages into the database and syncs it; done by whichever commit crosses
 * wal_autocheckpoint, it ran on the event loop, in the longest commits of an ingestion (up to tens of milliseconds,
 * measured beside SciFact). The connections that write set FOREGROUND_CHECKPOINT_PAGES instead, so they checkpoint only
 * if this thread falls behind. The thread starts with the first file and ends once the last one is stopped.
 */
export function startWalCheckpointer(file: string, intervalMs = CHECKPOINT_INTERVAL_MS): WalCheckpointer {
  const thread = checkpointThread();
  const id = nextFileId++;
  thread.files++;
  thread.worker.postMessage({ add: id, file, intervalMs });
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        if (!thread.alive) return resolve();
        thread.stopping.set(id, resolve);
        thread.worker.ref(); // a caller awaiting close() must keep the process alive until the thread has closed the file
        thread.worker.postMessage({ remove: id });
        if (--thread.files > 0) return;
        thread.worker.postMessage({ exit: true });
        if (current === thread) current = null;
      });
      return stopping;
    },
  };
}

/**
 * For a file-backed database: raise its connection's own checkpoint threshold to the backstop and start the background
 * checkpointer. The two go together (a raised threshold without the thread would let the log grow to 16,000 pages).
 * Null for an in-memory database, which has no log. Stop the checkpointer before closing the connection: the
 * connection closed last checkpoints what is left and removes the log.
 */
export function checkpointInBackground(db: { pragma(source: string): unknown }, filename: string): WalCheckpointer | null {
  if (isInMemory(filename)) return null;
  db.pragma(`wal_autocheckpoint = ${FOREGROUND_CHECKPOINT_PAGES}`);
  return startWalCheckpointer(resolve(filename));
}
