import { randomUUID } from 'node:crypto';
import { jobQueueSuite } from '@dossier/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresJobQueue, type PostgresJobQueue } from '../src/postgres/job-queue.ts';

/**
 * The Postgres job queue (issue 13) against the machine's Postgres: the queue conformance suite, each test on a
 * fresh schema of a database this file creates and drops, and two queues (two nodes) claiming concurrently.
 */

const ADMIN_URL = process.env.DOSSIER_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = `dossier_queue_${randomUUID().replaceAll('-', '')}`;
const databaseUrl = (): string => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  return url.toString();
};
const opened: PostgresJobQueue[] = [];

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await admin((client) => client.query(`CREATE DATABASE ${DATABASE}`));
});
afterAll(async () => {
  await Promise.allSettled(opened.map((queue) => queue.close()));
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
});

/** A fresh queue: the jobs table is emptied so each conformance test starts from nothing. */
async function freshQueue(): Promise<PostgresJobQueue> {
  const queue = await createPostgresJobQueue({ connectionString: databaseUrl() });
  opened.push(queue);
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  await client.query('TRUNCATE jobs');
  await client.end();
  return queue;
}

jobQueueSuite('postgres', freshQueue);

describe('Postgres job queue across nodes', () => {
  it('hands each job to exactly one of two nodes claiming at once', async () => {
    const [nodeA, nodeB] = [await freshQueue(), await createPostgresJobQueue({ connectionString: databaseUrl() })];
    opened.push(nodeB);
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => nodeA.enqueue({ type: 'work', payload: { i } })));
    const claimed: string[] = [];
    const worker = async (queue: PostgresJobQueue, owner: string) => {
      for (let job = await queue.claim(['work'], owner, 30_000); job; job = await queue.claim(['work'], owner, 30_000)) {
        claimed.push(job.id);
        await queue.complete(job.id, owner);
      }
    };
    await Promise.all([worker(nodeA, 'a1'), worker(nodeA, 'a2'), worker(nodeB, 'b1'), worker(nodeB, 'b2')]);
    expect(claimed.sort()).toEqual([...ids].sort());
    expect((await nodeB.counts()).done).toBe(40);
  });
});
