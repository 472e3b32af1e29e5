import { jobQueueSuite } from '@dossier/core/testing';
import { describe, expect, it } from 'vitest';
import { createPostgresJobQueue, type PostgresJobQueue } from '../src/postgres/job-queue.ts';
import { databaseForTests } from './fixtures/postgres-database.ts';

/**
 * The Postgres job queue (issue 13) against the machine's Postgres: the queue conformance suite, each test on a
 * fresh schema of a database this file creates and drops, and two queues (two nodes) claiming concurrently.
 */

const opened: PostgresJobQueue[] = [];
const { available, database } = await databaseForTests('dossier_queue', () => Promise.allSettled(opened.map((queue) => queue.close())));

/** A fresh queue: the jobs table is emptied so each conformance test starts from nothing. */
async function freshQueue(): Promise<PostgresJobQueue> {
  const queue = await createPostgresJobQueue({ connectionString: database().url });
  opened.push(queue);
  await database().query('TRUNCATE jobs');
  return queue;
}

describe.skipIf(!available)('Postgres job queue', () => {
  jobQueueSuite('postgres', freshQueue);

  it('hands each job to exactly one of two nodes claiming at once', async () => {
    const [nodeA, nodeB] = [await freshQueue(), await createPostgresJobQueue({ connectionString: database().url })];
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
