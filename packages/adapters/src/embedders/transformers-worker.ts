/**
 * Piscina worker: embeds a batch of texts with one model and returns the vectors as one row-major
 * Float32Array (`texts.length × dimension`). The model (given in workerData) loads on the first task and
 * stays loaded for the life of the thread.
 */
import { workerData } from 'node:worker_threads';
// The subpath, not the '@dossier/core' index: a worker thread loads only what it runs.
import { FeatureHashingEmbedder, featureHashingDimension } from '@dossier/core/feature-hashing';
import { lowerThisThreadsPriority } from '../pool/lower-priority.ts';

// Embedding is background work too: requests are served first when every core is busy.
lowerThisThreadsPriority();

/** What the pool passes as workerData. */
export interface EmbedWorkerConfig {
  model: string;
  /** Folder holding `<model>/config.json`; local loading is off when absent. */
  localModelPath?: string;
  /** transformers.js file cache (read, and written when downloading). */
  cacheDir?: string;
  allowRemote: boolean;
  dtype?: string;
}

type EmbedBatch = (texts: string[]) => Promise<Float32Array>;

/** The parts of @huggingface/transformers this worker uses. */
interface TransformersModule {
  env: { allowLocalModels: boolean; allowRemoteModels: boolean; localModelPath: string; cacheDir: string | null };
  pipeline(task: 'feature-extraction', model: string, opts: { dtype?: string }): Promise<FeatureExtractor>;
}
type FeatureExtractor = (texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: ArrayLike<number>; dims: number[] }>;

let loaded: Promise<EmbedBatch> | undefined;

export default async function embed(texts: string[]): Promise<Float32Array> {
  loaded ??= load(workerData as EmbedWorkerConfig);
  return (await loaded)(texts);
}

function load(config: EmbedWorkerConfig): Promise<EmbedBatch> {
  const dimension = featureHashingDimension(config.model);
  if (dimension !== null) return Promise.resolve(builtinHash(config.model, dimension));
  // A failed load is not cached: the next task retries (and reports) it.
  return loadTransformers(config).catch((err: unknown) => {
    loaded = undefined;
    throw err;
  });
}

/** builtin:hash-<dim>: the feature-hashing embedder, which needs no weights (run in the pool like any model). */
function builtinHash(model: string, dimension: number): EmbedBatch {
  const hashing = new FeatureHashingEmbedder({ dimension, model });
  return async (texts) => {
    const out = new Float32Array(texts.length * dimension);
    for (const [i, t] of texts.entries()) out.set(hashing.vectorOf(t), i * dimension);
    return out;
  };
}

async function loadTransformers(config: EmbedWorkerConfig): Promise<EmbedBatch> {
  const tf = await importTransformers();
  tf.env.allowLocalModels = config.localModelPath !== undefined;
  if (config.localModelPath !== undefined) tf.env.localModelPath = config.localModelPath;
  if (config.cacheDir !== undefined) tf.env.cacheDir = config.cacheDir;
  tf.env.allowRemoteModels = config.allowRemote;
  const extractor = await tf.pipeline('feature-extraction', config.model, config.dtype ? { dtype: config.dtype } : {});
  return async (texts) => {
    const output = await extractor(texts, { pooling: 'mean', normalize: true });
    return output.data instanceof Float32Array ? output.data : Float32Array.from(output.data);
  };
}

async function importTransformers(): Promise<TransformersModule> {
  // An optional dependency: a variable specifier keeps TypeScript from requiring it at build time.
  const specifier = '@huggingface/transformers';
  try {
    return (await import(specifier)) as TransformersModule;
  } catch (err) {
    throw new Error(`@huggingface/transformers is not installed or failed to load: ${(err as Error).message}`);
  }
}
