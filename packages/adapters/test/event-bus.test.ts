import { describe, expect, it } from 'vitest';
import { InProcessEventBus } from '@dossier/core';
import { eventBusSuite } from '@dossier/core/testing';

eventBusSuite('in-process', async () => new InProcessEventBus());

describe('InProcessEventBus', () => {
  it('has delivered to every subscriber by the time publish resolves', async () => {
    const bus = new InProcessEventBus();
    const seen: unknown[] = [];
    bus.subscribe('t', (e) => seen.push(e));
    await bus.publish('t', 1);
    expect(seen).toEqual([1]);
  });
});
