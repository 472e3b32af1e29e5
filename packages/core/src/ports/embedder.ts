/** Turns texts into fixed-width vectors. */
export interface Embedder {
  /** Model id as stored on collections, e.g. `Xenova/bge-small-en-v1.5` or `ollama:nomic-embed-text`. */
  readonly model: string;
  /** Vector width. */
  readonly dimension: number;
  /** Largest batch the adapter accepts in one call; core splits larger inputs. */
  readonly maxBatchSize: number;
  /** Embed documents (passages) in order. */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  /** Embed a search query (models with query prefixes apply them here). */
  embedQuery(text: string): Promise<Float32Array>;
  /** Release workers and handles. */
  close(): Promise<void>;
}

/** Resolves an embedding model id to an embedder, or null when the model is unavailable here. */
export interface EmbedderProvider {
  /** The embedder for a model id, loading it on first use; null when the model cannot be loaded. */
  get(model: string): Promise<Embedder | null>;
  /** Release every loaded embedder. */
  close(): Promise<void>;
}

/** Version of the Embedder contract that `embedderSuite` checks (major: every adapter must change; minor: more checks). */
export const EMBEDDER_SPEC_VERSION = '1.0.0';
