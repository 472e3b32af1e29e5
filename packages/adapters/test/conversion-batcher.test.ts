import type { PreparedDocument, PrepareInput } from '@dossier/core';
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_DOCUMENTS, type BatchSender, ConversionBatcher } from '../src/pool/conversion-batcher.ts';
import { createConversionPool } from '../src/pool/convert-pool.ts';
import type { ConvertReply } from '../src/pool/convert-worker.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const input = (name: string, text = `# ${name}\n\nSome words about ${name}.\n`): PrepareInput => ({
  bytes: utf8(text),
  filename: `${name}.md`,
  documentId: name,
});
const prepared = (name: string) => ({ markdown: utf8(name), sections: [], detectedType: 'text/markdown' }) as unknown as PreparedDocument;

/** A sender whose tasks finish when the test says so, recording the documents of each task. */
function heldSender(fail: (name: string) => boolean = () => false) {
  const tasks: string[][] = [];
  const releases: Array<() => void> = [];
  const held = () => new Promise<void>((resolve) => releases.push(resolve));
  const sender: BatchSender = {
    async convertBatch(inputs) {
      tasks.push(inputs.map((i) => i.documentId));
      await held();
      if (inputs.some((i) => i.documentId === 'crash')) throw new Error('the thread stopped');
      return inputs.map(
        (i): ConvertReply =>
          fail(i.documentId) ? { ok: false, code: 'unsupported_format', message: `no ${i.documentId}` } : { ok: true, ...prepared(i.documentId) },
      );
    },
    async convertOne(one) {
      tasks.push([one.documentId]);
      await held();
      if (one.documentId === 'crash') throw new Error('the thread stopped again');
      return prepared(one.documentId);
    },
  };
  const releaseAll = async () => {
    for (let turn = 0; turn < 20; turn++) {
      for (const release of releases.splice(0)) release();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { sender, tasks, releaseAll };
}

const nameOf = (p: PreparedDocument) => new TextDecoder().decode(p.markdown as Uint8Array);

describe('small documents share conversion tasks (ConversionBatcher, issue 41)', () => {
  it('documents that arrive while a task is in flight go together in the next task, at most BATCH_DOCUMENTS of them', async () => {
    const { sender, tasks, releaseAll } = heldSender();
    const batcher = new ConversionBatcher(sender, 1);
    const names = Array.from({ length: BATCH_DOCUMENTS + 3 }, (_, i) => `d${i}`);
    const results = names.map((name) => batcher.convert(input(name)));
    await releaseAll();
    expect((await Promise.all(results)).map(nameOf)).toEqual(names);
    expect(tasks.map((t) => t.length)).toEqual([1, BATCH_DOCUMENTS, 2]);
    expect(tasks.flat()).toEqual(names);
  });

  it('each document of a task gets its own outcome: one that cannot be converted fails alone', async () => {
    const { sender, releaseAll } = heldSender((name) => name === 'bad');
    const batcher = new ConversionBatcher(sender, 1);
    const results = ['first', 'a', 'bad', 'b'].map((name) => batcher.convert(input(name)).then(nameOf, (err) => err));
    await releaseAll();
    const [first, a, bad, b] = await Promise.all(results);
    expect([first, a, b]).toEqual(['first', 'a', 'b']);
    expect(bad).toMatchObject({ code: 'unsupported_format', message: 'no bad' });
  });

  it('a task that fails as a whole is made again one document a task: only the document that stops the thread fails', async () => {
    const { sender, tasks, releaseAll } = heldSender();
    const batcher = new ConversionBatcher(sender, 1);
    const results = ['first', 'a', 'crash', 'b'].map((name) => batcher.convert(input(name)).then(nameOf, (err: Error) => err.message));
    await releaseAll();
    expect(await Promise.all(results)).toEqual(['first', 'a', 'the thread stopped again', 'b']);
    expect(tasks).toEqual([['first'], ['a', 'crash', 'b'], ['a'], ['crash'], ['b']]);
  });
});

describe('the conversion pool converts small documents in shared tasks', () => {
  const pools: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it('converts a burst of small documents, each with its own sections, and fails only the one it cannot read', async () => {
    const pool = await createConversionPool();
    pools.push(pool);
    const names = Array.from({ length: 40 }, (_, i) => `note-${i}`);
    const binary = { bytes: new Uint8Array([0, 159, 146, 150, 0, 1, 2, 3]), filename: 'blob.bin', documentId: 'blob' };
    const outcomes = await Promise.allSettled([...names.map((name) => pool.run(input(name))), pool.run(binary)]);
    const titles = outcomes.slice(0, -1).map((o) => (o.status === 'fulfilled' ? o.value.sections.map((s) => s.title) : o.reason));
    expect(titles).toEqual(names.map((name) => [name]));
    expect(outcomes.at(-1)).toMatchObject({ status: 'rejected', reason: { code: 'unsupported_format' } });
    expect(pool.threads()).toBe(1);
  }, 60_000);
});
