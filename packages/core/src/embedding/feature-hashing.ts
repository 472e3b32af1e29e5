import { createHash } from 'node:crypto';
import type { Embedder } from '../ports/embedder.ts';

/** Model ids of the feature-hashing embedder: `builtin:hash-<dimension>`, 1 to 4096 dimensions. */
const MODEL_ID = /^builtin:hash-(\d{1,4})$/;

/** The dimension named by a `builtin:hash-<dim>` model id, or null for any other id. */
export function featureHashingDimension(model: string): number | null {
  const m = MODEL_ID.exec(model);
  const dim = m ? Number(m[1]) : 0;
  return dim >= 1 && dim <= 4096 ? dim : null;
}

/**
 * A feature-hashing embedder (the "hashing trick"): each lowercase word of a text is hashed (SHA-1) to one of
 * `dimension` buckets with a sign, and the bucket counts are L2-normalised. It needs no model weights and is
 * deterministic, so texts that share words are close and nothing else is: a lexical signal, not a semantic one.
 * Served under the model id `builtin:hash-<dimension>` (documented in docs/configuration.md); useful for air-gapped installs
 * that want the vector path without a model, for tests and for benchmarks of the pipeline itself.
 */
export class FeatureHashingEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  readonly maxBatchSize = 64;

  constructor(opts: { dimension?: number; model?: string } = {}) {
    this.dimension = opts.dimension ?? 64;
    this.model = opts.model ?? `builtin:hash-${this.dimension}`;
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.vectorOf(t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return this.vectorOf(text);
  }

  async close(): Promise<void> {}

  /** The vector of one text. */
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
