import { describe, expect, it } from 'vitest';
import { EmbedBatcher } from '../src/ingest/embed-batcher.ts';
import type { Embedder } from '../src/ports/embedder.ts';

/** An embedder whose vector for a text is [its length]; it records each call's texts and fails on any text 'bad'. */
function recordingEmbedder(maxBatchSize: number) {
  const calls: string[][] = [];
  const pending: (() => void)[] = [];
  const embedder: Embedder = {
    model: 'test:length',
    dimension: 1,
    maxBatchSize,
    embedDocuments: async (texts) => {
      calls.push(texts);
      await new Promise<void>((resolve) => pending.push(resolve));
      if (texts.includes('bad')) throw new Error('the model refused a text');
      return texts.map((t) => Float32Array.of(t.length));
    },
    embedQuery: async (text) => Float32Array.of(text.length),
    close: async () => {},
  };
  /** Let every call made so far finish. */
  const finishCalls = async () => {
    while (pending.length > 0) {
      for (const resolve of pending.splice(0)) resolve();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { embedder, calls, finishCalls };
}

const lengths = (vectors: Float32Array[]) => vectors.map((v) => v[0]);

describe('EmbedBatcher', () => {
  it('sends the texts of callers that arrive while calls are in flight together, and gives each caller its own vectors', async () => {
    const { embedder, calls, finishCalls } = recordingEmbedder(4);
    const batcher = new EmbedBatcher(embedder);
    const results = Promise.all([['a'], ['bb'], ['ccc', 'dddd'], ['eeeee'], ['ffffff', 'g', 'hh']].map((texts) => batcher.embed(texts)));
    await finishCalls();
    // Two calls start at once (one computing, one queued); the rest wait and share calls up to 4 texts.
    expect(calls).toEqual([['a'], ['bb'], ['ccc', 'dddd', 'eeeee'], ['ffffff', 'g', 'hh']]);
    expect((await results).map(lengths)).toEqual([[1], [2], [3, 4], [5], [6, 1, 2]]);
  });

  it('fails only the caller whose text the model refused, when their call was shared', async () => {
    const { embedder, calls, finishCalls } = recordingEmbedder(8);
    const batcher = new EmbedBatcher(embedder);
    const first = batcher.embed(['one']);
    const second = batcher.embed(['two']);
    const shared = [batcher.embed(['ok']), batcher.embed(['bad']), batcher.embed(['fine'])].map((p) => p.then(lengths, (err: Error) => err.message));
    await finishCalls();
    expect(lengths(await first)).toEqual([3]);
    expect(lengths(await second)).toEqual([3]);
    expect(await Promise.all(shared)).toEqual([[2], 'the model refused a text', [4]]);
    expect(calls.slice(2)).toEqual([['ok', 'bad', 'fine'], ['ok'], ['bad'], ['fine']]);
  });
});
