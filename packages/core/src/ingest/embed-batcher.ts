import type { Embedder } from '../ports/embedder.ts';

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
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(private readonly embedder: Embedder) {}

  /** The texts' vectors, in order, as `embedder.embedDocuments` gives them. */
  embed(texts: string[]): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ texts, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.inFlight < CALLS_IN_FLIGHT && this.waiting.length > 0) {
      const callers = this.take();
      this.inFlight++;
      void this.send(callers).finally(() => {
        this.inFlight--;
        this.next();
      });
    }
  }

  /** The first waiting caller, and those after it whose texts fit in the same call. */
  private take(): Waiting[] {
    const callers = [this.waiting.shift()!];
    let size = callers[0]!.texts.length;
    while (this.waiting.length > 0 && size + this.waiting[0]!.texts.length <= this.embedder.maxBatchSize) {
      size += this.waiting[0]!.texts.length;
      callers.push(this.waiting.shift()!);
    }
    return callers;
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
