import { Worker } from 'node:worker_threads';
import { BACKGROUND_THREAD_NICENESS } from '../pool/lower-priority.ts';
import { sqliteDriverPath } from './driver.ts';

/** How often the background thread copies a database's write-ahead log back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 200;

/**
 * WAL pages at which a committing connection checkpoints by itself (SQLite's wal_autocheckpoint; its default is
 * 1,000). Only a backstop for when the background thread falls behind: a checkpoint in a commit runs on the event loop.
 */
export const FOREGROUND_CHECKPOINT_PAGES = 16_000;

/** A database file's background checkpointer; `stop` runs a last checkpoint and closes its connection. */
export interface WalCheckpointer {
  stop(): Promise<void>;
}

/**
 * The worker: its own connection to the file, a PASSIVE checkpoint every interval (it never waits for a lock and never
 * blocks a writer or a reader), at background niceness on Linux. Plain CommonJS so that it runs the same from source
 * and installed.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const threadId = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').at(-1));
  if (Number.isInteger(threadId) && threadId !== process.pid) require('node:os').setPriority(threadId, workerData.niceness);
} catch {}
const Database = require(workerData.driverPath);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints the write-ahead log of an SQLite file (already in WAL mode) from a thread of its own. A checkpoint
 * copies the log's pages into the database and syncs it; done by whichever commit crosses wal_autocheckpoint, it ran on
 * the event loop, in the longest commits of an ingestion (up to tens of milliseconds, measured beside SciFact). The
 * connections that write set FOREGROUND_CHECKPOINT_PAGES instead, so they checkpoint only if this thread falls behind.
 */
export function startWalCheckpointer(file: string, intervalMs = CHECKPOINT_INTERVAL_MS): WalCheckpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, intervalMs, driverPath: sqliteDriverPath(), niceness: BACKGROUND_THREAD_NICENESS },
  });
  worker.unref(); // a store left open never keeps the process alive
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => resolve());
    worker.once('error', () => resolve()); // a checkpointer that failed to start leaves the backstop in charge
  });
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        worker.ref(); // a caller awaiting close() must keep the process alive until the thread has closed the file
        worker.postMessage('stop');
        await exited;
      })();
      return stopping;
    },
  };
}
