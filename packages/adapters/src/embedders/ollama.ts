import { DossierError, type Embedder } from '@dossier/core';
import { type EmbeddingPrompts, promptsFor } from './prompts.ts';
import { importOptional } from '../optional.ts';

export const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';

/** The part of the `ollama` client this adapter uses (`POST /api/embed`). */
interface OllamaClient {
  embed(request: { model: string; input: string[] }): Promise<{ embeddings: number[][] }>;
}

/**
 * Embedder over an Ollama server. `name` is Ollama's model name (`nomic-embed-text`); the embedder's model
 * id is `ollama:<name>`. The dimension is learnt by embedding a probe, which also proves the server is up
 * and the model pulled; otherwise this throws an `unavailable` error saying which.
 */
export async function loadOllamaEmbedder(name: string, host = DEFAULT_OLLAMA_URL): Promise<Embedder> {
  const { Ollama } = await importOptional<typeof import('ollama')>('ollama', 'Ollama embedding models');
  const target: OllamaTarget = { client: new Ollama({ host }), host, name };
  const [probe] = await embedVia(target, ['dimension probe']);
  if (!probe?.length) throw new DossierError('unavailable', `Ollama at ${host} returned no embedding for model ${name}`);
  return new OllamaEmbedder(target, probe.length);
}

interface OllamaTarget {
  client: OllamaClient;
  host: string;
  name: string;
}

class OllamaEmbedder implements Embedder {
  readonly maxBatchSize = 64;
  readonly model: string;
  private readonly prompts: EmbeddingPrompts;

  constructor(
    private readonly target: OllamaTarget,
    readonly dimension: number,
  ) {
    this.model = `ollama:${target.name}`;
    this.prompts = promptsFor(target.name);
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return this.checked(
      await embedVia(
        this.target,
        texts.map((t) => this.prompts.document + t),
      ),
    );
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = this.checked(await embedVia(this.target, [this.prompts.query + text]));
    return vector!;
  }

  async close(): Promise<void> {}

  private checked(vectors: Float32Array[]): Float32Array[] {
    if (vectors.some((v) => v.length !== this.dimension)) {
      throw new DossierError('dimension_mismatch', `Ollama model ${this.target.name} no longer returns ${this.dimension}-wide vectors`);
    }
    return vectors;
  }
}

/** One /api/embed request, checked for one vector per input. */
async function embedVia({ client, host, name }: OllamaTarget, input: string[]): Promise<Float32Array[]> {
  let embeddings: number[][];
  try {
    ({ embeddings } = await client.embed({ model: name, input }));
  } catch (err) {
    throw ollamaError(err, host, name);
  }
  if (embeddings.length !== input.length) {
    throw new DossierError('internal', `Ollama returned ${embeddings.length} embeddings for ${input.length} inputs`);
  }
  return embeddings.map((e) => Float32Array.from(e));
}

/** Maps the client's failures: HTTP errors carry `status_code`; a down server is a fetch TypeError. */
function ollamaError(err: unknown, host: string, name: string): DossierError {
  const status = (err as { status_code?: unknown }).status_code;
  const message = (err as Error).message;
  if (typeof status === 'number') {
    const retryable = status >= 500 || status === 429;
    return new DossierError('unavailable', `Ollama at ${host} refused model ${name} (HTTP ${status}: ${message})`, { cause: err, retryable });
  }
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  return new DossierError('unavailable', `Ollama at ${host} is unreachable (${cause ?? message})`, { cause: err, retryable: true });
}
