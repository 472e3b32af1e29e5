import { randomUUID } from 'node:crypto';
import type { JobQueue, JobState, NewJob } from '@dossier/core';
import type { Pool, PoolClient } from 'pg';
import { COLUMNS, DEFAULT_MAX_ATTEMPTS, type JobRow, QUEUE_MIGRATIONS, toJob } from '../sqlite/job-queue.ts';
import { importOptional } from '../optional.ts';

/**
 * The job queue on Postgres (issue 13): several server nodes share one queue. A claim is one statement that picks
 * the next runnable job with `FOR UPDATE SKIP LOCKED` (concurrent claimers never wait on, or take, the same row)
 * and leases it; every other transition is one conditional UPDATE. Same schema as the SQLite queue.
 */
export interface PostgresJobQueue extends JobQueue {
  close(): Promise<void>;
}

/** The advisory lock that makes concurrent first starts migrate one after the other. */
const MIGRATION_LOCK = 4_711_013;

async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

async function migrate(pool: Pool): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS queue_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const { rows } = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM queue_migrations');
    for (let version = (rows[0]?.v ?? 0) + 1; version <= QUEUE_MIGRATIONS.length; version++) {
      await client.query(QUEUE_MIGRATIONS[version - 1]!);
      await client.query('INSERT INTO queue_migrations (version, applied_at) VALUES ($1, $2)', [version, Date.now()]);
    }
  });
}

async function enqueue(pool: Pool, job: NewJob): Promise<string> {
  const now = Date.now();
  const params = [
    randomUUID(),
    job.type,
    JSON.stringify(job.payload),
    job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    job.runAt?.getTime() ?? now,
    job.dedupeKey ?? null,
    now,
    job.priority ?? 0,
  ];
  const inserted = await pool.query<{ id: string }>(
    `INSERT INTO jobs (id, type, payload, state, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at, priority)
     VALUES ($1, $2, $3, 'queued', 0, $4, $5, $6, $7, $7, $8)
     ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND state IN ('queued', 'running') DO NOTHING RETURNING id`,
    params,
  );
  if (inserted.rows[0]) return inserted.rows[0].id;
  const existing = await pool.query<{ id: string }>("SELECT id FROM jobs WHERE dedupe_key = $1 AND state IN ('queued', 'running') LIMIT 1", [job.dedupeKey]);
  return existing.rows[0]?.id ?? enqueue(pool, job); // finished in between: enqueue anew
}

/** Expired leases first (a dead worker's job), then queued jobs by priority and time. */
const CLAIM_SQL = `UPDATE jobs SET state = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1, updated_at = $3
  WHERE id = (
    SELECT id FROM jobs
    WHERE type = ANY($4) AND ((state = 'running' AND lease_expires_at <= $3) OR (state = 'queued' AND run_at <= $3))
    ORDER BY CASE WHEN state = 'running' THEN 0 ELSE 1 END, lease_expires_at, priority DESC, run_at, created_at
    LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING ${COLUMNS}`;

/** A JobQueue on Postgres at `connectionString`; the schema is created on first use. */
export async function createPostgresJobQueue(opts: { connectionString: string; max?: number }): Promise<PostgresJobQueue> {
  const { default: pg } = await importOptional<typeof import('pg')>('pg', 'The Postgres job queue');
  const pool = new pg.Pool({ connectionString: opts.connectionString, max: opts.max ?? 5 });
  // An idle connection the server drops (a restart, a failover) is replaced on next use; it must not crash the process.
  pool.on('error', () => {});
  await migrate(pool);
  return {
    enqueue: (job) => enqueue(pool, job),
    async claim(types, owner, leaseMs) {
      if (types.length === 0) return null;
      const now = Date.now();
      const { rows } = await pool.query<JobRow>(CLAIM_SQL, [owner, now + leaseMs, now, types]);
      return rows[0] ? toJob(rows[0]) : null;
    },
    async heartbeat(jobId, owner, leaseMs) {
      const now = Date.now();
      const result = await pool.query("UPDATE jobs SET lease_expires_at = $1, updated_at = $2 WHERE id = $3 AND state = 'running' AND lease_owner = $4", [
        now + leaseMs,
        now,
        jobId,
        owner,
      ]);
      return result.rowCount === 1;
    },
    async complete(jobId, owner) {
      await pool.query(
        "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, updated_at = $1 WHERE id = $2 AND state = 'running' AND lease_owner = $3",
        [Date.now(), jobId, owner],
      );
    },
    async fail(jobId, owner, error, retryAt) {
      await pool.query(
        `UPDATE jobs SET state = $1, run_at = COALESCE($2, run_at), last_error = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = $4
         WHERE id = $5 AND state = 'running' AND lease_owner = $6`,
        [retryAt ? 'queued' : 'failed', retryAt?.getTime() ?? null, error, Date.now(), jobId, owner],
      );
    },
    async get(jobId) {
      const { rows } = await pool.query<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = $1`, [jobId]);
      return rows[0] ? toJob(rows[0]) : null;
    },
    async counts() {
      const counts: Record<JobState, number> = { queued: 0, running: 0, done: 0, failed: 0 };
      const { rows } = await pool.query<{ state: JobState; n: string }>('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state');
      for (const row of rows) counts[row.state] = Number(row.n);
      return counts;
    },
    async nextWakeAt(types) {
      if (types.length === 0) return null;
      const { rows } = await pool.query<{ at: string | null }>(
        "SELECT MIN(CASE WHEN state = 'queued' THEN run_at ELSE lease_expires_at END) AS at FROM jobs WHERE type = ANY($1) AND state IN ('queued', 'running')",
        [types],
      );
      return rows[0]?.at == null ? null : new Date(Number(rows[0].at));
    },
    async close() {
      if (!pool.ended) await pool.end();
    },
  };
}
