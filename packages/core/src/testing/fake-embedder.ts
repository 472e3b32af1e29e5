import { createHash } from 'node:crypto';
import type { Embedder } from '../ports/embedder.ts';

/**
 * Deterministic embedder for tests: a hashed bag of lowercase word tokens, L2-normalised, so texts that
 * share words are close. Records every call. Never a product default.
 */
export class FakeEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  readonly maxBatchSize = 64;
  /** Texts of every embedDocuments call, in order. */
  readonly calls: string[][] = [];

  constructor(opts: { dimension?: number; model?: string } = {}) {
    this.dimension = opts.dimension ?? 64;
    this.model = opts.model ?? `fake-${this.dimension}`;
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return texts.map((t) => this.vectorOf(t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return this.vectorOf(text);
  }

  async close(): Promise<void> {}

  /** The vector of one text (exposed for assertions). */
  vectorOf(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const h = createHash('sha1').update(word).digest();
      v[h.readUInt32LE(0) % this.dimension]! += h[4]! & 1 ? 1 : -1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  }
}
