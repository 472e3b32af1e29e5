import { describe, expect, it } from 'vitest';
import { writeInSlices } from '../src/kysely/batches.ts';

/** A write that holds the thread for `ms`, as SQLite statements do, recording its slice. */
const busyWrite = (ms: number, log: string[]) => async (slice: number[]) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
  log.push(`write ${slice.join(',')}`);
};

describe('writeInSlices', () => {
  it('lets the event loop turn between slices once the statements have run for a while', async () => {
    const log: string[] = [];
    setImmediate(() => log.push('turn'));
    await writeInSlices([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 2, busyWrite(3, log));
    expect(log.filter((entry) => entry.startsWith('write'))).toEqual(['write 0,1', 'write 2,3', 'write 4,5', 'write 6,7', 'write 8,9']);
    // Some slices ran (8 ms of them), then the loop turned, then the rest.
    expect(log.indexOf('turn')).toBeGreaterThan(0);
    expect(log.indexOf('turn')).toBeLessThan(log.length - 1);
  });

  it('writes a small set of rows without a pause', async () => {
    const log: string[] = [];
    setImmediate(() => log.push('turn'));
    await writeInSlices([0, 1, 2], 1, busyWrite(0, log));
    expect(log).toEqual(['write 0', 'write 1', 'write 2']);
  });
});
