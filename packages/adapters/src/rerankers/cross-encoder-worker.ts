/**
 * Piscina worker: scores (query, passage) pairs with one transformers.js cross-encoder (a sequence
 * classification model such as Xenova/ms-marco-MiniLM-L-6-v2) and returns one logit per pair. The model
 * (given in workerData) loads on the first task and stays loaded for the life of the thread.
 */
import { workerData } from 'node:worker_threads';

/** What the pool passes as workerData. */
export interface CrossEncoderWorkerConfig {
  model: string;
  localModelPath?: string;
  cacheDir?: string;
  allowRemote: boolean;
  dtype?: string;
}

/** One task: a query and the passages to score against it. */
export interface CrossEncoderTask {
  query: string;
  passages: string[];
}

type Tensor = { data: ArrayLike<number>; dims: number[] };
interface TransformersModule {
  env: { allowLocalModels: boolean; allowRemoteModels: boolean; localModelPath: string; cacheDir: string | null };
  AutoTokenizer: { from_pretrained(model: string): Promise<Tokenizer> };
  AutoModelForSequenceClassification: { from_pretrained(model: string, opts: { dtype?: string }): Promise<Model> };
}
type Tokenizer = (texts: string[], opts: { text_pair: string[]; padding: boolean; truncation: boolean }) => Record<string, unknown>;
type Model = (inputs: Record<string, unknown>) => Promise<{ logits: Tensor }>;
type Score = (task: CrossEncoderTask) => Promise<Float32Array>;

let loaded: Promise<Score> | undefined;

export default async function score(task: CrossEncoderTask): Promise<Float32Array> {
  loaded ??= load(workerData as CrossEncoderWorkerConfig).catch((err: unknown) => {
    loaded = undefined; // not cached: the next task retries (and reports) the load
    throw err;
  });
  return (await loaded)(task);
}

async function load(config: CrossEncoderWorkerConfig): Promise<Score> {
  const specifier = '@huggingface/transformers'; // optional dependency, loaded by name at run time
  const tf = (await import(specifier)) as TransformersModule;
  tf.env.allowLocalModels = config.localModelPath !== undefined;
  if (config.localModelPath !== undefined) tf.env.localModelPath = config.localModelPath;
  if (config.cacheDir !== undefined) tf.env.cacheDir = config.cacheDir;
  tf.env.allowRemoteModels = config.allowRemote;
  const tokenizer = await tf.AutoTokenizer.from_pretrained(config.model);
  const model = await tf.AutoModelForSequenceClassification.from_pretrained(config.model, config.dtype ? { dtype: config.dtype } : {});
  return async ({ query, passages }) => {
    const inputs = tokenizer(
      passages.map(() => query),
      { text_pair: passages, padding: true, truncation: true },
    );
    const { logits } = await model(inputs);
    // One logit per pair (MS MARCO cross-encoders); with two classes, the last column is "relevant".
    const width = logits.dims[1] ?? 1;
    return Float32Array.from(passages, (_, i) => Number(logits.data[i * width + width - 1]));
  };
}
