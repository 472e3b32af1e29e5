import { resolve } from 'node:path';
import type { Embedder, EmbedderProvider } from '@dossier/core';
import { DEFAULT_OLLAMA_URL, loadOllamaEmbedder } from './ollama.ts';
import { resolveModelSource } from './resolve-model.ts';
import { loadTransformersEmbedder } from './transformers.ts';

export interface EmbedderProviderOptions {
  /** Folder of pre-downloaded models: `<modelsDir>/<owner>/<name>/config.json`. */
  modelsDir?: string;
  /** transformers.js download cache; also searched for models before the hub. */
  cacheDir?: string;
  /** Whether a model missing on disk may be fetched from the Hugging Face hub. */
  allowDownload: boolean;
  /** Ollama server for `ollama:<name>` models (default http://127.0.0.1:11434). */
  ollamaBaseUrl?: string;
  /** Worker threads per transformers.js model (default 1). */
  poolSize?: number;
  /** Receives one line per model that could not be loaded, saying why. */
  log?: (msg: string) => void;
}

/**
 * Resolves model ids to embedders: `ollama:<name>` → Ollama, `none` → null (embedding disabled), anything
 * else → transformers.js (`builtin:hash-<dim>` is the
 * feature-hashing embedder: lexical, deterministic, no weights).
 * Loaded embedders are cached per id; an unavailable model yields null and a log line, and is retried on
 * the next call (the server may have started or the model been pulled since).
 */
export function createEmbedderProvider(opts: EmbedderProviderOptions): EmbedderProvider {
  const loaded = new Map<string, Promise<Embedder | null>>();
  const log = opts.log ?? (() => {});
  return {
    get(model) {
      let pending = loaded.get(model);
      if (!pending) {
        pending = loadOrNull(model, opts, log);
        loaded.set(model, pending);
        pending.then((e) => e ?? loaded.delete(model));
      }
      return pending;
    },
    async close() {
      const all = await Promise.all(loaded.values());
      loaded.clear();
      await Promise.all(all.map((e) => e?.close()));
    },
  };
}

async function loadOrNull(model: string, opts: EmbedderProviderOptions, log: (msg: string) => void): Promise<Embedder | null> {
  if (model === 'none') return null;
  try {
    if (model.startsWith('ollama:')) {
      return await loadOllamaEmbedder(model.slice('ollama:'.length), opts.ollamaBaseUrl ?? DEFAULT_OLLAMA_URL);
    }
    const found = await resolveModelSource(model, {
      allowDownload: opts.allowDownload,
      ...(opts.modelsDir ? { modelsDir: resolve(opts.modelsDir) } : {}),
      ...(opts.cacheDir ? { cacheDir: resolve(opts.cacheDir) } : {}),
    });
    if ('missing' in found) {
      log(`embedding model ${model} is unavailable: ${found.missing}`);
      return null;
    }
    return await loadTransformersEmbedder(model, found.source, opts.poolSize ?? 1);
  } catch (err) {
    log(`embedding model ${model} is unavailable: ${(err as Error).message}`);
    return null;
  }
}
