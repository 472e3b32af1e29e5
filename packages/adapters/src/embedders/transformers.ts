import { DossierError, type Embedder } from '@dossier/core';
import { siblingWorkerUrl, workerOptions } from '../pool/worker-file.ts';
import { type EmbeddingPrompts, promptsFor } from './prompts.ts';
import type { ModelSource } from './resolve-model.ts';
import type { EmbedWorkerConfig } from './transformers-worker.ts';

/** The parts of a piscina pool this adapter uses. */
interface WorkerPool {
  run(texts: string[]): Promise<Float32Array>;
  destroy(): Promise<void>;
}

/**
 * Loads a transformers.js feature-extraction model (mean pooling, L2-normalised) into a piscina pool, so
 * tokenising and inference never run on the event loop. The model is probed once to learn its dimension;
 * any failure (package missing, files missing, download refused) is an `unavailable` error naming the cause.
 */
export async function loadTransformersEmbedder(model: string, source: ModelSource, poolSize = 1): Promise<Embedder> {
  const { Piscina } = await import('piscina');
  const pool: WorkerPool = new Piscina({
    ...workerOptions(siblingWorkerUrl('transformers-worker', import.meta.url)),
    workerData: workerConfig(model, source),
    // Threads stay up so each keeps its loaded model; ONNX Runtime already spreads one batch over cores.
    minThreads: poolSize,
    maxThreads: poolSize,
  });
  try {
    const probe = await pool.run(['dimension probe']);
    return new PooledEmbedder(model, probe.length, pool, promptsFor(model));
  } catch (err) {
    await pool.destroy();
    throw new DossierError('unavailable', `transformers.js failed to load ${model}: ${(err as Error).message}`, { cause: err });
  }
}

function workerConfig(model: string, source: ModelSource): EmbedWorkerConfig {
  switch (source.kind) {
    case 'builtin':
      return { model, allowRemote: false };
    case 'local':
      return { model, localModelPath: source.modelsDir, allowRemote: false, ...dtype(source.dtype) };
    case 'cache':
      return { model, cacheDir: source.cacheDir, allowRemote: false, ...dtype(source.dtype) };
    case 'hub':
      return { model, allowRemote: true, ...(source.cacheDir ? { cacheDir: source.cacheDir } : {}) };
  }
}

const dtype = (d: string | undefined): { dtype?: string } => (d ? { dtype: d } : {});

class PooledEmbedder implements Embedder {
  readonly maxBatchSize = 32;

  constructor(
    readonly model: string,
    readonly dimension: number,
    private readonly pool: WorkerPool,
    private readonly prompts: EmbeddingPrompts,
  ) {}

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return this.run(texts.map((t) => this.prompts.document + t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.run([this.prompts.query + text]);
    return vector!;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }

  /** Embeds in a worker and splits the row-major result into one vector per text. */
  private async run(texts: string[]): Promise<Float32Array[]> {
    const flat = await this.pool.run(texts);
    if (flat.length !== texts.length * this.dimension) {
      throw new DossierError(
        'dimension_mismatch',
        `model ${this.model} returned ${flat.length} values for ${texts.length} texts of dimension ${this.dimension}`,
      );
    }
    return texts.map((_, i) => flat.slice(i * this.dimension, (i + 1) * this.dimension));
  }
}
