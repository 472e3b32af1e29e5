import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Job, JobQueue, JobState, NewJob } from '@dossier/core';
import { checkpointInBackground } from './checkpointer.ts';
import { openWalSqlite, type SqliteConnection } from './driver.ts';
import { WriteGroup } from './write-group.ts';

/** The driver's connection (loaded only when a queue is opened). */
type Database = SqliteConnection;
type Statement = ReturnType<Database['prepare']>;

/** A JobQueue over one SQLite file; `close` releases the file. */
export interface SqliteJobQueue extends JobQueue {
  close(): Promise<void>;
}

/** A jobs row as a driver returns it (Postgres gives BIGINT columns as strings, SQLite as numbers). */
export interface JobRow {
  id: string;
  type: string;
  payload: string;
  state: JobState;
  attempts: number | string;
  max_attempts: number | string;
  run_at: number | string;
  lease_owner: string | null;
  lease_expires_at: number | string | null;
  last_error: string | null;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const COLUMNS = 'id, type, payload, state, attempts, max_attempts, run_at, lease_owner, lease_expires_at, last_error';

/**
 * Versioned schema steps, applied in order and recorded in `queue_migrations`. Times are epoch
 * milliseconds (BIGINT) and the SQL is standard (partial index, UPDATE … RETURNING), so a Postgres
 * adapter can reuse it. The partial unique index makes "one unfinished job per dedupeKey" a constraint.
 */
export const QUEUE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     type TEXT NOT NULL,
     payload TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
     attempts INTEGER NOT NULL DEFAULT 0,
     max_attempts INTEGER NOT NULL,
     run_at BIGINT NOT NULL,
     lease_owner TEXT,
     lease_expires_at BIGINT,
     last_error TEXT,
     dedupe_key TEXT,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL
   );
   CREATE INDEX jobs_queued ON jobs (state, type, run_at);
   CREATE INDEX jobs_leases ON jobs (state, type, lease_expires_at);
   CREATE UNIQUE INDEX jobs_unfinished_dedupe ON jobs (dedupe_key)
     WHERE dedupe_key IS NOT NULL AND state IN ('queued', 'running');`,
  // Priorities, and an index that yields queued jobs already in claim order: the single claim query with an
  // OR over both states gathered and sorted every runnable job on each claim (O(queue) per claim).
  `ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX jobs_claim_order ON jobs (state, priority DESC, run_at, created_at);`,
];

function migrate(db: Database): void {
  const step = db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS queue_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const row = db.prepare('SELECT MAX(version) AS v FROM queue_migrations').get() as { v: number | null };
    for (let version = (row.v ?? 0) + 1; version <= QUEUE_MIGRATIONS.length; version++) {
      db.exec(QUEUE_MIGRATIONS[version - 1]!);
      db.prepare('INSERT INTO queue_migrations (version, applied_at) VALUES (?, ?)').run(version, Date.now());
    }
  });
  // IMMEDIATE takes the write lock first, so two processes opening a new file migrate one after the other.
  step.immediate();
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    type: row.type,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    state: row.state,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAt: new Date(Number(row.run_at)),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at === null ? null : new Date(Number(row.lease_expires_at)),
    lastError: row.last_error,
  };
}

/** `?, ?, ?` for n parameters. */
const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** Prepared statements per number of job types, since `type IN (…)` has one placeholder per type. */
function byTypeCount(db: Database, sqlFor: (types: string) => string): (n: number) => Statement {
  const cache = new Map<number, Statement>();
  return (n) => {
    let stmt = cache.get(n);
    if (!stmt) {
      stmt = db.prepare(sqlFor(placeholders(n)));
      cache.set(n, stmt);
    }
    return stmt;
  };
}

function statements(db: Database) {
  return {
    findUnfinished: db.prepare("SELECT id FROM jobs WHERE dedupe_key = ? AND state IN ('queued', 'running') LIMIT 1"),
    insert: db.prepare(
      `INSERT INTO jobs (id, type, payload, state, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at, priority)
       VALUES (?, ?, ?, 'queued', 0, ?, ?, ?, ?, ?, ?)`,
    ),
    expiredLease: byTypeCount(
      db,
      (types) => `SELECT id FROM jobs WHERE state = 'running' AND lease_expires_at <= ? AND type IN (${types})
        ORDER BY lease_expires_at LIMIT 1`,
    ),
    nextQueued: byTypeCount(
      db,
      (types) => `SELECT id FROM jobs WHERE state = 'queued' AND run_at <= ? AND type IN (${types})
        ORDER BY priority DESC, run_at, created_at LIMIT 1`,
    ),
    lease: db.prepare(
      `UPDATE jobs SET state = 'running', lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ?
       WHERE id = ? RETURNING ${COLUMNS}`,
    ),
    heartbeat: db.prepare("UPDATE jobs SET lease_expires_at = ?, updated_at = ? WHERE id = ? AND state = 'running' AND lease_owner = ?"),
    complete: db.prepare(
      `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
       WHERE id = ? AND state = 'running' AND lease_owner = ?`,
    ),
    fail: db.prepare(
      `UPDATE jobs SET state = ?, run_at = COALESCE(?, run_at), last_error = ?, lease_owner = NULL,
         lease_expires_at = NULL, updated_at = ?
       WHERE id = ? AND state = 'running' AND lease_owner = ?`,
    ),
    get: db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`),
    counts: db.prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state'),
    nextWakeAt: byTypeCount(
      db,
      (types) => `SELECT MIN(CASE WHEN state = 'queued' THEN run_at ELSE lease_expires_at END) AS at
        FROM jobs WHERE type IN (${types}) AND state IN ('queued', 'running')`,
    ),
  };
}

type Statements = ReturnType<typeof statements>;

/** Pick and lease one job in one IMMEDIATE transaction, so the pick and the lease are atomic across processes. */
function claimIn(db: Database, st: Statements) {
  const run = db.transaction((types: string[], owner: string, leaseMs: number): JobRow | undefined => {
    const now = Date.now();
    const pick = (st.expiredLease(types.length).get(now, ...types) ?? st.nextQueued(types.length).get(now, ...types)) as { id: string } | undefined;
    return pick ? (st.lease.get(owner, now + leaseMs, now, pick.id) as JobRow) : undefined;
  });
  return (types: string[], owner: string, leaseMs: number) => run.immediate(types, owner, leaseMs);
}

function enqueueIn(db: Database, st: Statements): (job: NewJob) => string {
  const run = db.transaction((job: NewJob): string => {
    if (job.dedupeKey !== undefined) {
      const existing = st.findUnfinished.get(job.dedupeKey) as { id: string } | undefined;
      if (existing) return existing.id;
    }
    const id = randomUUID();
    const now = Date.now();
    const runAt = job.runAt?.getTime() ?? now;
    const maxAttempts = job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    st.insert.run(id, job.type, JSON.stringify(job.payload), maxAttempts, runAt, job.dedupeKey ?? null, now, now, job.priority ?? 0);
    return id;
  });
  // IMMEDIATE: the dedupe lookup and the insert happen under the write lock, across processes too.
  return (job) => run.immediate(job);
}

/**
 * Durable job queue in its own SQLite file (WAL). Every transition is one statement or one IMMEDIATE
 * transaction, so several processes can share the file; transitions made in one turn of the event loop are
 * committed together (WriteGroup), each resolving once it is committed. Timing policy lives in core's job runner.
 */
export function createSqliteJobQueue(opts: { filename: string }): SqliteJobQueue {
  const db = openWalSqlite(opts.filename); // several processes may share the file
  migrate(db);
  const st = statements(db);
  const enqueue = enqueueIn(db, st);
  const claim = claimIn(db, st);
  const group = new WriteGroup(db, resolve(opts.filename));
  const checkpointer = checkpointInBackground(db, opts.filename);
  return {
    enqueue: (job) => group.write(() => enqueue(job)),
    async claim(types, owner, leaseMs) {
      if (types.length === 0) return null;
      const row = await group.write(() => claim(types, owner, leaseMs));
      return row ? toJob(row) : null;
    },
    heartbeat(jobId, owner, leaseMs) {
      const now = Date.now();
      return group.write(() => Number(st.heartbeat.run(now + leaseMs, now, jobId, owner).changes) === 1);
    },
    async complete(jobId, owner) {
      await group.write(() => st.complete.run(Date.now(), jobId, owner));
    },
    async fail(jobId, owner, error, retryAt) {
      const state: JobState = retryAt ? 'queued' : 'failed';
      await group.write(() => st.fail.run(state, retryAt?.getTime() ?? null, error, Date.now(), jobId, owner));
    },
    async get(jobId) {
      const row = st.get.get(jobId) as JobRow | undefined;
      return row ? toJob(row) : null;
    },
    async counts() {
      const counts: Record<JobState, number> = { queued: 0, running: 0, done: 0, failed: 0 };
      for (const row of st.counts.all() as { state: JobState; n: number }[]) counts[row.state] = row.n;
      return counts;
    },
    async nextWakeAt(types) {
      if (types.length === 0) return null;
      const row = st.nextWakeAt(types.length).get(...types) as { at: number | null } | undefined;
      return row?.at == null ? null : new Date(row.at);
    },
    async close() {
      await group.settled();
      await checkpointer?.stop(); // first: the connection closed last checkpoints what is left and removes the log
      db.close();
    },
  };
}
