import type { Logger, RerankCandidate, Reranker } from '@dossier/core';
import { type ModelLocations, type ModelSource, resolveModelSource } from '../embedders/resolve-model.ts';
import { siblingWorkerUrl, workerOptions } from '../pool/worker-file.ts';
import type { CrossEncoderTask, CrossEncoderWorkerConfig } from './cross-encoder-worker.ts';

/** The parts of a piscina pool this adapter uses. */
interface WorkerPool {
  run(task: CrossEncoderTask): Promise<Float32Array>;
  destroy(): Promise<void>;
}

/** Default cross-encoder: MS MARCO MiniLM-L6, ~23 MB quantized, the usual local reranker. */
export const DEFAULT_CROSS_ENCODER = 'Xenova/ms-marco-MiniLM-L-6-v2';

/**
 * A transformers.js cross-encoder in a piscina pool (tokenising and inference off the event loop), or null
 * with a log line when the package or the model files are unavailable: reranking is an optional step, and
 * queries keep their fused order without it. The model is probed once, so a broken model is found at start.
 */
export async function loadCrossEncoderReranker(model: string, at: ModelLocations, log: Pick<Logger, 'warn' | 'info'>): Promise<Reranker | null> {
  const resolved = await resolveModelSource(model, at);
  if ('missing' in resolved) return unavailable(log, model, resolved.missing);
  const config = workerConfig(model, resolved.source);
  if (!config) return unavailable(log, model, 'builtin models are embedders, not cross-encoders');
  let pool: WorkerPool | undefined;
  try {
    const { Piscina } = await import('piscina');
    pool = new Piscina({ ...workerOptions(siblingWorkerUrl('cross-encoder-worker', import.meta.url)), workerData: config, minThreads: 1, maxThreads: 1 });
    await pool.run({ query: 'probe', passages: ['probe'] });
  } catch (err) {
    await pool?.destroy();
    return unavailable(log, model, (err as Error).message);
  }
  log.info('reranker ready', { reranker: `cross-encoder:${model}` });
  return new PooledCrossEncoder(model, pool);
}

function unavailable(log: Pick<Logger, 'warn'>, model: string, reason: string): null {
  log.warn('cross-encoder reranker unavailable; queries are not reranked', { model, reason });
  return null;
}

function workerConfig(model: string, source: ModelSource): CrossEncoderWorkerConfig | null {
  const dtype = 'dtype' in source && source.dtype ? { dtype: source.dtype } : {};
  switch (source.kind) {
    case 'builtin':
      return null;
    case 'local':
      return { model, localModelPath: source.modelsDir, allowRemote: false, ...dtype };
    case 'cache':
      return { model, cacheDir: source.cacheDir, allowRemote: false, ...dtype };
    case 'hub':
      return { model, allowRemote: true, ...(source.cacheDir ? { cacheDir: source.cacheDir } : {}) };
  }
}

class PooledCrossEncoder implements Reranker {
  readonly name: string;

  constructor(
    model: string,
    private readonly pool: WorkerPool,
  ) {
    this.name = `cross-encoder:${model}`;
  }

  async rerank(query: string, candidates: RerankCandidate[]): Promise<number[]> {
    if (candidates.length === 0) return [];
    return [...(await this.pool.run({ query, passages: candidates.map((c) => c.text) }))];
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
