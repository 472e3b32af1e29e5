import { describe, expect, it } from 'vitest';
import { TableMaintenance } from '../src/lancedb/maintenance.ts';
import type { TableHandle } from '../src/lancedb/tables.ts';

const handle = { name: 't' } as TableHandle;
const tick = () => new Promise((r) => setTimeout(r, 0));

/** An optimize whose runs the test finishes by hand, reporting the table's row count. */
function manualOptimize() {
  const runs: ((rows: number) => void)[] = [];
  const optimize = () => new Promise<number | undefined>((resolve) => runs.push(resolve));
  return { runs, optimize };
}

describe('TableMaintenance', () => {
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

  it('optimizes once writes go quiet, including writes that arrived while a run was going', async () => {
    const { runs, optimize } = manualOptimize();
    const m = new TableMaintenance(optimize, { idleMs: 20, maxOps: 1000, maxRows: 1_000_000 });
    m.noteWrite(handle, 1);
    await new Promise((r) => setTimeout(r, 60));
    expect(runs).toHaveLength(1);
    m.noteWrite(handle, 1); // arrives during the run; its idle timer fires while the run is still going
    await new Promise((r) => setTimeout(r, 60));
    expect(runs).toHaveLength(1);
    runs[0]!(10);
    await new Promise((r) => setTimeout(r, 60));
    expect(runs).toHaveLength(2);
    runs[1]!(11);
    await m.close();
  });
});
