import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { featureHashingDimension } from '@dossier/core/feature-hashing';

/** Where a transformers.js model will be loaded from. */
export type ModelSource =
  /** The feature-hashing embedder (`builtin:hash-<dim>`): lexical, deterministic, no weights (see FeatureHashingEmbedder). */
  | { kind: 'builtin'; dimension: number }
  /** `<modelsDir>/<model>/config.json` exists. */
  | { kind: 'local'; modelsDir: string; dtype?: string }
  /** `<cacheDir>/<model>/config.json` exists (transformers.js file-cache layout). */
  | { kind: 'cache'; cacheDir: string; dtype?: string }
  /** Not on disk; the Hugging Face hub may be used, caching into cacheDir when given. */
  | { kind: 'hub'; cacheDir?: string };

export type ModelResolution = { source: ModelSource } | { missing: string };

export interface ModelLocations {
  modelsDir?: string;
  cacheDir?: string;
  allowDownload: boolean;
}

// Hugging Face ids: `name` or `owner/name` of letters, digits, `-`, `_`, `.` (so never a path that escapes).
const HF_ID = /^[\w.-]+(\/[\w.-]+)?$/;

/** Decides where a model comes from: built in, a local folder, the cache, or (when allowed) the hub. */
export async function resolveModelSource(model: string, at: ModelLocations): Promise<ModelResolution> {
  const dimension = featureHashingDimension(model);
  if (dimension !== null) return { source: { kind: 'builtin', dimension } };
  if (!HF_ID.test(model) || model.split('/').some((s) => s === '.' || s === '..')) {
    return { missing: `"${model}" is not a valid model id (expected owner/name)` };
  }
  const checked: string[] = [];
  if (at.modelsDir) {
    const dir = join(at.modelsDir, model);
    checked.push(join(dir, 'config.json'));
    if (await exists(join(dir, 'config.json'))) return { source: { kind: 'local', modelsDir: at.modelsDir, ...(await dtypeOf(dir)) } };
  }
  if (at.cacheDir) {
    const dir = join(at.cacheDir, model);
    checked.push(join(dir, 'config.json'));
    if (await exists(join(dir, 'config.json'))) return { source: { kind: 'cache', cacheDir: at.cacheDir, ...(await dtypeOf(dir)) } };
  }
  if (at.allowDownload) return { source: { kind: 'hub', ...(at.cacheDir ? { cacheDir: at.cacheDir } : {}) } };
  const where = checked.length ? `no local copy (checked ${checked.join(', ')})` : 'no modelsDir or cacheDir is configured';
  return { missing: `${where} and downloading is disabled (allowDownload: false)` };
}

/** Full-precision weights when present, else the quantized file that Xenova/onnx-community repos ship. */
async function dtypeOf(dir: string): Promise<{ dtype?: string }> {
  if (await exists(join(dir, 'onnx', 'model.onnx'))) return { dtype: 'fp32' };
  if (await exists(join(dir, 'onnx', 'model_quantized.onnx'))) return { dtype: 'q8' };
  return {};
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
