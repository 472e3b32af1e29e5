import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChunkingPool } from '../src/pool/chunk-pool.ts';
import { createConversionPool } from '../src/pool/convert-pool.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const markdown = '# Notes\n\nThe river floods every spring.\n';

describe('worker pools start threads with their tasks and stop them when idle (issue 41)', () => {
  const pools: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it('a conversion pool starts no thread until its first task, and has none again once it has been idle', async () => {
    const pool = await createConversionPool({ idleMs: 100 });
    pools.push(pool);
    expect(pool.threads()).toBe(0);
    const prepared = await pool.run({ bytes: utf8(markdown), filename: 'notes.md', documentId: 'd' });
    expect(prepared.sections.map((s) => s.title)).toEqual(['Notes']);
    expect(pool.threads()).toBe(1);
    await vi.waitFor(() => expect(pool.threads()).toBe(0), { timeout: 20_000, interval: 50 });
    // The next task starts a thread again.
    await pool.run({ bytes: utf8(markdown), filename: 'again.md', documentId: 'e' });
    expect(pool.threads()).toBe(1);
  }, 60_000);

  it('a chunking pool keeps one thread for a burst of quick tasks, its spare thread never started by the first start-up', async () => {
    // The first tasks wait for the thread to load its tokenizer (far longer than spareAfterMs): no spare for that.
    const pool = await createChunkingPool({ threads: 1, maxThreads: 2, spareAfterMs: 5_000 });
    pools.push(pool);
    const text = markdown.repeat(3);
    const tasks = Array.from({ length: 8 }, (_, i) =>
      pool.run({ documentId: `d${i}`, markdown: utf8(text), sections: [{ id: 's', position: 0, start: 0, end: text.length }], chunkSize: 64, chunkOverlap: 8 }),
    );
    expect((await Promise.all(tasks)).every((chunks) => chunks.length > 0)).toBe(true);
    expect(pool.threads()).toBe(1);
  }, 60_000);
});
