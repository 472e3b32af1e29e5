import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type GateTicket, TaskGate } from '../src/pool/task-gate.ts';

/** Asks the gate for a ticket and records when it came. */
function ask(gate: TaskGate, admitted: string[], name: string): Promise<GateTicket> {
  return gate.enter().then((ticket) => {
    admitted.push(name);
    return ticket;
  });
}

/** Time is the subject (how long a task has run): the clock, performance.now() included, is fake and the tests move it. */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('TaskGate: kept threads, and a spare one only beside a slow task', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a stream of quick tasks one at a time, in the order they asked, without a spare thread', async () => {
    const gate = new TaskGate(1, 2, 200);
    const admitted: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map(async (name) => {
        const ticket = await ask(gate, admitted, name);
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await elapse(5);
        running--;
        gate.leave(ticket);
      }),
    );
    expect(admitted).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(mostAtOnce).toBe(1);
  });

  it('lets the task behind a slow one take the spare thread once the slow one has run spareAfterMs', async () => {
    const gate = new TaskGate(1, 2, 60);
    const admitted: string[] = [];
    const slow = await ask(gate, admitted, 'slow');
    const startedAt = performance.now();
    const quick = ask(gate, admitted, 'quick');
    await elapse(20);
    expect(admitted).toEqual(['slow']); // not yet: the slow task has run only 20 ms
    await vi.advanceTimersToNextTimerAsync(); // the gate looks again when the slow task turns slow
    const ticket = await quick;
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(55);
    expect(admitted).toEqual(['slow', 'quick']);
    // The spare thread goes on serving the queue while the slow task runs.
    gate.leave(ticket);
    gate.leave(await ask(gate, admitted, 'next'));
    expect(admitted).toEqual(['slow', 'quick', 'next']);
    gate.leave(slow);
  });

  it('never runs more than maxThreads at once, and admits the next task as soon as one ends', async () => {
    const gate = new TaskGate(1, 2, 10);
    const admitted: string[] = [];
    const first = await ask(gate, admitted, 'first');
    const asked = ask(gate, admitted, 'second'); // spare, once the first has run 10 ms
    await vi.advanceTimersToNextTimerAsync();
    const second = await asked;
    const third = ask(gate, admitted, 'third');
    await elapse(50); // both running tasks are slow now, and both threads are taken
    expect(admitted).toEqual(['first', 'second']);
    gate.leave(first);
    gate.leave(await third);
    gate.leave(second);
    expect(admitted).toEqual(['first', 'second', 'third']);
  });

  it('with no spare thread (threads = maxThreads), queues behind even a slow task', async () => {
    const gate = new TaskGate(1, 1, 5);
    const admitted: string[] = [];
    const slow = await ask(gate, admitted, 'slow');
    const behind = ask(gate, admitted, 'behind');
    await elapse(30);
    expect(admitted).toEqual(['slow']);
    gate.leave(slow);
    gate.leave(await behind);
    expect(admitted).toEqual(['slow', 'behind']);
  });
});

describe('TaskGate: a pool with no thread up (issue 41)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives no spare thread while the first task waits for a thread to start, and times tasks from the moment one is up', async () => {
    const gate = new TaskGate(1, 2, 50);
    gate.chill(); // as a pool starts: no thread yet
    const admitted: string[] = [];
    const first = await ask(gate, admitted, 'first');
    const behind = ask(gate, admitted, 'behind');
    await elapse(500); // the thread is still loading its libraries: the first task is waiting, not slow
    expect(admitted).toEqual(['first']);
    gate.warm();
    await elapse(20);
    expect(admitted).toEqual(['first']); // 20 ms since the thread came up
    await elapse(40);
    expect(admitted).toEqual(['first', 'behind']); // now the first task is slow: the spare thread is due
    gate.leave(first);
    gate.leave(await behind);
  });

  it('after its threads stopped (idle), holds the queue to the kept threads again until one is up', async () => {
    const gate = new TaskGate(1, 2, 10);
    gate.chill();
    const admitted: string[] = [];
    const first = await ask(gate, admitted, 'first');
    const behind = ask(gate, admitted, 'behind');
    await elapse(100);
    expect(admitted).toEqual(['first']);
    gate.leave(first);
    gate.leave(await behind);
    expect(admitted).toEqual(['first', 'behind']);
  });
});
