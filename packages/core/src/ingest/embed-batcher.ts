import type { Embedder } from '../ports/embedder.ts';
import { SharedCalls } from '../util/shared-calls.ts';

/** One caller's texts waiting to be embedded, and where their vectors go. */
interface Waiting {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: unknown) => void;
}

/** Embedder calls in flight at once: one being computed while the next waits, so the model never idles between them. */
const CALLS_IN_FLIGHT = 2;

/**
 * Embeds the texts of many callers (documents being ingested at once) in shared calls, up to the embedder's
 * maxBatchSize each. A small document has one chunk, so one call per document paid the embedder's per-call cost (a
 * message to its thread, a model invocation, a request) for every chunk; texts that arrive while calls are in flight
 * wait and go together in the next. A shared call that fails is made again per caller, so one document's bad text
 * fails only that document.
 */
export class EmbedBatcher {
  private readonly calls: SharedCalls<Waiting>;

  constructor(private readonly embedder: Embedder) {
    this.calls = new SharedCalls({
      calls: CALLS_IN_FLIGHT,
      capacity: embedder.maxBatchSize,
      sizeOf: (caller) => caller.texts.length,
      send: (callers) => this.send(callers),
    });
  }

  /** The texts' vectors, in order, as `embedder.embedDocuments` gives them. */
  embed(texts: string[]): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => this.calls.add({ texts, resolve, reject }));
  }

  private async send(callers: Waiting[]): Promise<void> {
    let vectors: Float32Array[];
    try {
      vectors = await this.embedder.embedDocuments(callers.flatMap((c) => c.texts));
    } catch (err) {
      if (callers.length === 1) callers[0]!.reject(err);
      else for (const caller of callers) await this.embedder.embedDocuments(caller.texts).then(caller.resolve, caller.reject);
      return;
    }
    let offset = 0;
    for (const caller of callers) {
      caller.resolve(vectors.slice(offset, offset + caller.texts.length));
      offset += caller.texts.length;
    }
  }
}

const batchers = new WeakMap<Embedder, EmbedBatcher>();

/** The batcher shared by every caller of one embedder. */
export function batcherOf(embedder: Embedder): EmbedBatcher {
  const known = batchers.get(embedder);
  if (known) return known;
  const batcher = new EmbedBatcher(embedder);
  batchers.set(embedder, batcher);
  return batcher;
}
