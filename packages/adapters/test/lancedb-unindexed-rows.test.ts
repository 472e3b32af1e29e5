import { describe, expect, it } from 'vitest';
import { UnindexedRows } from '../src/lancedb/unindexed-rows.ts';

/** A stand-in for LanceDB's index statistics that counts how often it was asked. */
function lance(rows: number) {
  const asked = { count: 0, rows };
  const ask = async () => {
    asked.count++;
    return asked.rows;
  };
  return { asked, ask };
}

describe('UnindexedRows', () => {
  it('asks once, then adds what appends wrote', async () => {
    const counts = new UnindexedRows(false);
    const { asked, ask } = lance(4);
    expect(await counts.of('t', ask)).toBe(4);
    await counts.commit('t', async () => counts.appending('t', 3));
    expect(await counts.of('t', ask)).toBe(7);
    expect(asked.count).toBe(1);
  });

  it('asks again after a commit that is not only an append, or an append that failed', async () => {
    const counts = new UnindexedRows(false);
    const { asked, ask } = lance(4);
    await counts.of('t', ask);
    await counts.commit('t', async () => {}); // an update, delete or optimize
    expect(await counts.of('t', ask)).toBe(4);
    const failedAppend = async () => {
      counts.appending('t', 2);
      throw new Error('conflict');
    };
    await expect(counts.commit('t', failedAppend)).rejects.toThrow('conflict');
    await counts.of('t', ask);
    expect(asked.count).toBe(3);
  });

  it('keeps nothing it read while a commit ran, and asks during one', async () => {
    const counts = new UnindexedRows(false);
    const { asked, ask } = lance(1);
    await counts.of('t', ask);
    let finish!: () => void;
    const running = counts.commit('t', () => new Promise<void>((resolve) => (finish = resolve)));
    asked.rows = 9;
    expect(await counts.of('t', ask)).toBe(9); // the count of the version before the commit, not kept
    finish();
    await running;
    asked.rows = 5;
    expect(await counts.of('t', ask)).toBe(5);
    expect(await counts.of('t', ask)).toBe(5);
    expect(asked.count).toBe(3);
  });

  it('shared with other processes, asks on every read', async () => {
    const counts = new UnindexedRows(true);
    const { asked, ask } = lance(2);
    await counts.of('t', ask);
    await counts.commit('t', async () => counts.appending('t', 1));
    await counts.of('t', ask);
    expect(asked.count).toBe(2);
  });

  it('forgets a dropped table', async () => {
    const counts = new UnindexedRows(false);
    const { asked, ask } = lance(2);
    await counts.of('t', ask);
    counts.forget('t');
    await counts.of('t', ask);
    expect(asked.count).toBe(2);
  });
});
