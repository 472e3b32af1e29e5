import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../src/lancedb/group-commit.ts';
import type { LanceRecord } from '../src/lancedb/sdk.ts';
import { LanceTables, type TableHandle } from '../src/lancedb/tables.ts';

/** The commit queue of a real LanceTables; the commits themselves are recorded instead of written. */
const handle = { name: 't' } as TableHandle;
const rows = (...ids: string[]): LanceRecord[] => ids.map((id) => ({ id }));

let dir: string;
let tables: LanceTables;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dossier-group-commit-'));
  tables = new LanceTables(dir, 0, false);
});
afterAll(async () => {
  await tables.close();
  await rm(dir, { recursive: true, force: true });
});

/** Time is the subject (pacing, commit length): the clock, performance.now() included, is fake and the tests move it. */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** Moves the fake clock 5 ms at a time until `p` settles (5 s of fake time at most), then returns it. */
async function settle<T>(p: Promise<T>): Promise<T> {
  let settled = false;
  const mark = () => {
    settled = true;
  };
  p.then(mark, mark);
  for (let ms = 0; !settled && ms < 5000; ms += 5) await elapse(5);
  return p;
}

/** A commit function that records each commit's start time, record ids and fresh flag, taking `ms` of fake time to finish. */
function recorder(ms = 0, fail = false) {
  const commits: { at: number; ids: string[]; fresh: boolean }[] = [];
  const commit = async (_h: TableHandle, records: LanceRecord[], fresh: boolean) => {
    commits.push({ at: performance.now(), ids: records.map((r) => String(r.id)), fresh });
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (fail) throw new Error('disk full');
  };
  return { commits, commit };
}

describe('GroupCommit', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('commits a lone upsert at once, and paces the next commits of the table by minIntervalMs, sharing them', async () => {
    const { commits, commit } = recorder();
    const groups = new GroupCommit(tables, commit, { minIntervalMs: 150, maxRows: 1000 });
    const started = performance.now();
    await settle(groups.upsert(handle, rows('a'), true));
    expect(performance.now() - started).toBeLessThan(100);
    const later = [groups.upsert(handle, rows('b'), true), groups.upsert(handle, rows('c'), false)];
    await elapse(20);
    const third = groups.upsert(handle, rows('d'), true);
    await settle(Promise.all([...later, third]));
    expect(commits.map((c) => c.ids)).toEqual([['a'], ['b', 'c', 'd']]);
    expect(commits[1]!.at - commits[0]!.at).toBeGreaterThanOrEqual(145);
    expect(commits.map((c) => c.fresh)).toEqual([true, false]); // one non-fresh upsert makes its whole batch a merge
  });

  it('starts a waiting batch at once when it reaches maxRows', async () => {
    const { commits, commit } = recorder();
    const groups = new GroupCommit(tables, commit, { minIntervalMs: 10_000, maxRows: 3 });
    await settle(groups.upsert(handle, rows('a')));
    const started = performance.now();
    await settle(Promise.all([groups.upsert(handle, rows('b', 'c')), groups.upsert(handle, rows('d'))]));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(commits.map((c) => c.ids)).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('upserts made while a commit runs join the next one, which starts after it', async () => {
    const { commits, commit } = recorder(80);
    const groups = new GroupCommit(tables, commit, { minIntervalMs: 0, maxRows: 1000 });
    const first = groups.upsert(handle, rows('a'));
    await elapse(20);
    await settle(Promise.all([first, groups.upsert(handle, rows('b')), groups.upsert(handle, rows('c'))]));
    expect(commits.map((c) => c.ids)).toEqual([['a'], ['b', 'c']]);
    expect(commits[1]!.at - commits[0]!.at).toBeGreaterThanOrEqual(75);
  });

  it('rejects every upsert of a failed commit, and the next batch commits normally', async () => {
    const failing = recorder(0, true);
    const groups = new GroupCommit(tables, failing.commit, { minIntervalMs: 50, maxRows: 1000 });
    await expect(settle(groups.upsert(handle, rows('a')))).rejects.toThrow('disk full');
    const results = await settle(Promise.allSettled([groups.upsert(handle, rows('b')), groups.upsert(handle, rows('c'))]));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(failing.commits.map((c) => c.ids)).toEqual([['a'], ['b', 'c']]);
  });
});
