import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type OptimizeOutcome, TableMaintenance } from '../src/lancedb/maintenance.ts';
import type { TableHandle } from '../src/lancedb/tables.ts';

const handle = { name: 't' } as TableHandle;
/** Time is the subject here (idle, settle and retry timers): the clock is fake and each test moves it. */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const tick = () => elapse(0);

/** An optimize whose runs the test finishes by hand, reporting the table's row count and whether it compacted. */
function manualOptimize() {
  const runs: ((rows: number, compacted?: boolean) => void)[] = [];
  const optimize = () => new Promise<OptimizeOutcome>((resolve) => runs.push((rows, compacted = false) => resolve({ rows, compacted })));
  return { runs, optimize };
}

describe('TableMaintenance', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('optimizes during writes once new rows pass max(maxRows, a quarter of the table), one run per table at a time', async () => {
    const { runs, optimize } = manualOptimize();
    const m = new TableMaintenance(optimize, { idleMs: 60_000, maxOps: 1000, maxRows: 100 });
    m.noteWrite(handle, 60);
    expect(runs).toHaveLength(0);
    m.noteWrite(handle, 60); // 120 ≥ 100
    expect(runs).toHaveLength(1);
    m.noteWrite(handle, 500); // due, but the first run is still going
    expect(runs).toHaveLength(1);
    runs[0]!(1000); // the table now has 1,000 rows: next threshold 250
    await tick();
    expect(runs).toHaveLength(2); // the writes that waited were due
    runs[1]!(1500);
    await tick();
    m.noteWrite(handle, 300); // below 1500 / 4 = 375
    expect(runs).toHaveLength(2);
    m.noteWrite(handle, 100);
    expect(runs).toHaveLength(3);
    runs[2]!(1900);
    await m.close();
  });

  it('optimizes after maxOps writes only while the table is searched (or searched elsewhere); a bulk load alone waits for rows or quiet', async () => {
    const { runs, optimize } = manualOptimize();
    const m = new TableMaintenance(optimize, { idleMs: 60_000, maxOps: 3, maxRows: 1_000_000 });
    for (let n = 0; n < 5; n++) m.noteWrite(handle, 1);
    expect(runs).toHaveLength(0); // five writes, nobody searched: no optimize while writes go on
    m.noteSearch(handle); // a search finds 5 ≥ 3 writes waiting: the optimize starts now
    expect(runs).toHaveLength(1);
    runs[0]!(5);
    await tick();
    for (let n = 0; n < 3; n++) m.noteWrite(handle, 1);
    expect(runs).toHaveLength(1); // the search before that optimize does not count for the writes after it
    m.noteSearch(handle);
    expect(runs).toHaveLength(2);
    runs[1]!(8);
    await tick();
    m.noteSearch(handle); // searched, then three writes: due at the third
    for (let n = 0; n < 3; n++) m.noteWrite(handle, 1);
    expect(runs).toHaveLength(3);
    runs[2]!(11);
    await m.close();

    const elsewhere = manualOptimize();
    const shared = new TableMaintenance(elsewhere.optimize, { idleMs: 60_000, maxOps: 3, maxRows: 1_000_000, readersElsewhere: true });
    for (let n = 0; n < 3; n++) shared.noteWrite(handle, 1);
    expect(elsewhere.runs).toHaveLength(1); // another process searches: the writes alone call for it
    elsewhere.runs[0]!(3);
    await shared.close();
  });

  it('optimizes one table at a time: a second table that is due waits for the first run to finish', async () => {
    const { runs, optimize } = manualOptimize();
    const started: string[] = [];
    const byTable = (h: TableHandle) => {
      started.push(h.name);
      return optimize();
    };
    const m = new TableMaintenance(byTable, { idleMs: 60_000, maxOps: 2, readersElsewhere: true });
    const other = { name: 'u' } as TableHandle;
    m.noteWrite(handle, 1);
    m.noteWrite(other, 1);
    m.noteWrite(handle, 1); // due
    m.noteWrite(other, 1); // due too, but the first run is going
    expect(started).toEqual(['t']);
    runs[0]!(10);
    await tick();
    expect(started).toEqual(['t', 'u']);
    runs[1]!(10);
    await m.close();
  });

  it('optimizes once writes go quiet, including writes that arrived while a run was going', async () => {
    const { runs, optimize } = manualOptimize();
    const m = new TableMaintenance(optimize, { idleMs: 20, maxOps: 1000, maxRows: 1_000_000 });
    m.noteWrite(handle, 1);
    await elapse(60);
    expect(runs).toHaveLength(1);
    m.noteWrite(handle, 1); // arrives during the run; its idle timer fires while the run is still going
    await elapse(60);
    expect(runs).toHaveLength(1);
    runs[0]!(10);
    await elapse(60);
    expect(runs).toHaveLength(2);
    runs[1]!(11);
    await m.close();
  });

  it('runs once more when the versions replaced by the last optimize have expired, and never again until new writes', async () => {
    const { runs, optimize } = manualOptimize();
    const m = new TableMaintenance(optimize, { idleMs: 10, maxOps: 1000, retainMs: 40 });
    m.noteWrite(handle, 1);
    await waitFor(() => runs.length === 1);
    runs[0]!(1);
    await waitFor(() => runs.length === 2); // the settle run, about retainMs later
    runs[1]!(1);
    await elapse(150);
    expect(runs).toHaveLength(2);
    await m.close();
  });

  it('settles again while settle runs still compact, three runs in a row at most', async () => {
    const { runs, optimize } = manualOptimize();
    const m = new TableMaintenance(optimize, { idleMs: 10, maxOps: 1000, retainMs: 20 });
    m.noteWrite(handle, 1);
    await waitFor(() => runs.length === 1);
    runs[0]!(1, true);
    for (let i = 1; i <= 3; i++) {
      await waitFor(() => runs.length === i + 1);
      runs[i]!(1, true); // every settle run still compacted
    }
    await elapse(1500);
    expect(runs).toHaveLength(4);
    await m.close();
  });

  it('a write before the settle run cancels it; the optimize of that write schedules the next one', async () => {
    const { runs, optimize } = manualOptimize();
    const m = new TableMaintenance(optimize, { idleMs: 10, maxOps: 1000, retainMs: 200 });
    m.noteWrite(handle, 1);
    await waitFor(() => runs.length === 1);
    runs[0]!(1);
    await tick();
    m.noteWrite(handle, 1); // before the settle run is due
    await waitFor(() => runs.length === 2);
    runs[1]!(2);
    await waitFor(() => runs.length === 3);
    runs[2]!(2);
    await elapse(300);
    expect(runs).toHaveLength(3);
    await m.close();
  });

  it('flush() runs a pending optimize at once, waits for it and for one that writes during it call for; close() flushes too', async () => {
    const { runs, optimize } = manualOptimize();
    const m = new TableMaintenance(optimize, { idleMs: 600_000, maxOps: 1000 });
    m.noteWrite(handle, 5);
    let flushed = false;
    const flush = m.flush().then(() => {
      flushed = true;
    });
    await tick();
    expect(runs).toHaveLength(1);
    m.noteWrite(handle, 1); // during the run
    runs[0]!(5);
    await waitFor(() => runs.length === 2);
    expect(flushed).toBe(false);
    runs[1]!(6);
    await flush;
    m.noteWrite(handle, 1);
    const closing = m.close();
    await waitFor(() => runs.length === 3);
    runs[2]!(7);
    await closing;
    m.noteWrite(handle, 1); // closed: nothing more
    await tick();
    expect(runs).toHaveLength(3);
  });

  it('retries a failed optimize after a longer quiet period, with no new write', async () => {
    let calls = 0;
    const m = new TableMaintenance(
      async () => {
        calls++;
        if (calls === 1) throw new Error('disk busy');
        return { rows: 1, compacted: false };
      },
      { idleMs: 10, maxOps: 1000, retainMs: 60_000 },
    );
    m.noteWrite(handle, 1);
    await waitFor(() => calls === 2); // the retry, 2 × idleMs after the failure
    await m.close();
  });
});

/** Resolves once `ok()` holds, moving the fake clock 5 ms between checks; fails after 5 s of fake time. */
async function waitFor(ok: () => boolean): Promise<void> {
  const until = Date.now() + 5000;
  while (!ok()) {
    if (Date.now() > until) throw new Error('condition not met within 5 s');
    await elapse(5);
  }
}
