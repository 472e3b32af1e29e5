import { FeatureHashingEmbedder } from '../embedding/feature-hashing.ts';

/**
 * Embedder for tests: the feature-hashing embedder (texts that share words are close) under a test model id,
 * recording every call. Never a product default.
 */
export class FakeEmbedder extends FeatureHashingEmbedder {
  /** Texts of every embedDocuments call, in order. */
  readonly calls: string[][] = [];

  constructor(opts: { dimension?: number; model?: string } = {}) {
    super({ dimension: opts.dimension ?? 64, model: opts.model ?? `fake-${opts.dimension ?? 64}` });
  }

  override async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return super.embedDocuments(texts);
  }
}
