/** A job to enqueue. */
export interface NewJob {
  /** Handler name, e.g. `ingest.convert`. */
  type: string;
  payload: Record<string, unknown>;
  /** When set, enqueueing while an unfinished job with the same key exists returns that job's id instead. */
  dedupeKey?: string;
  /** Attempts before the job is marked failed for good (default 5). */
  maxAttempts?: number;
  /** Earliest run time (default now). */
  runAt?: Date;
  /** Among runnable jobs, higher priority is claimed first, then earlier runAt (default 0). */
  priority?: number;
}

export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** A job as stored. */
export interface Job {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  state: JobState;
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  lastError: string | null;
}

/**
 * Durable, at-least-once job storage with leases. Policy (polling, heartbeats, backoff) lives in core's
 * job runner; the adapter only makes each transition atomic.
 */
export interface JobQueue {
  /** Store a job; returns its id (or the id of the unfinished job sharing its dedupeKey). */
  enqueue(job: NewJob): Promise<string>;
  /**
   * Atomically take one runnable job of the given types: a running one whose lease expired, else the queued
   * one with runAt <= now of highest priority, earliest runAt. Sets the lease, increments attempts, and
   * returns it; null when none is runnable.
   */
  claim(types: string[], owner: string, leaseMs: number): Promise<Job | null>;
  /** Extend the lease; false when the lease is no longer held by owner. */
  heartbeat(jobId: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Mark done; ignored when owner no longer holds the lease. */
  complete(jobId: string, owner: string): Promise<void>;
  /** Record a failure: requeue at retryAt, or mark failed when retryAt is null. */
  fail(jobId: string, owner: string, error: string, retryAt: Date | null): Promise<void>;
  /** A job by id. */
  get(jobId: string): Promise<Job | null>;
  /** Number of jobs per state (for health and tests). */
  counts(): Promise<Record<JobState, number>>;
  /** Earliest runAt among queued jobs and lease expiry among running ones, for sleep scheduling. */
  nextWakeAt(types: string[]): Promise<Date | null>;
  /** Release connections; safe to call twice. */
  close(): Promise<void>;
}

/** Version of the JobQueue contract that `jobQueueSuite` checks (major: every adapter must change; minor: more checks). */
export const JOB_QUEUE_SPEC_VERSION = '1.0.0';
