import { DossierError, type Logger, type ModelProviderFactory, type Reranker, createLlmReranker } from '@dossier/core';
import { routeModel } from '@dossier/core/internal';
import type { ModelLocations } from '../embedders/resolve-model.ts';
import type { ProviderOptions } from '../providers/model-resolver.ts';
import { DEFAULT_CROSS_ENCODER, loadCrossEncoderReranker } from './cross-encoder.ts';

/** A parsed DOSSIER_RERANKER value. */
export type RerankerSpec = { kind: 'none' } | { kind: 'cross-encoder'; model: string } | { kind: 'llm'; model: string | null };

/** `none`, `cross-encoder[:<model id>]` or `llm[:<model id>]`; anything else is invalid_input. */
export function parseRerankerSpec(raw: string): RerankerSpec {
  const [kind, ...rest] = raw.trim().split(':');
  const arg = rest.join(':').trim();
  if (kind === 'none' && !arg) return { kind: 'none' };
  if (kind === 'cross-encoder') return { kind: 'cross-encoder', model: arg || DEFAULT_CROSS_ENCODER };
  if (kind === 'llm') return { kind: 'llm', model: arg || null };
  throw new DossierError('invalid_input', `unknown reranker '${raw}': expected none, cross-encoder[:<model>] or llm[:<model>]`);
}

/** What building a reranker may need. */
export interface RerankerDeps {
  models: ModelLocations;
  providers: ProviderOptions;
  factory: ModelProviderFactory;
  log: Logger;
}

/**
 * The reranker a spec names, or null (none, or unavailable: logged). `llm` uses the managed provider of
 * its model (default: the fast tier model, else claude-haiku-4-5 / gpt-4.1-mini by the managed key present).
 */
export async function buildReranker(spec: RerankerSpec, d: RerankerDeps): Promise<Reranker | null> {
  if (spec.kind === 'none') return null;
  if (spec.kind === 'cross-encoder') return loadCrossEncoderReranker(spec.model, d.models, d.log);
  const model =
    spec.model ?? d.providers.fastModel ?? (d.providers.anthropic?.apiKey ? 'claude-haiku-4-5' : d.providers.openai?.apiKey ? 'gpt-4.1-mini' : null);
  if (!model) {
    d.log.warn('llm reranker unavailable: no model and no managed provider key; queries are not reranked', {});
    return null;
  }
  const route = routeModel(model);
  const creds = route.provider === 'ollama' ? { baseUrl: d.providers.ollama?.baseUrl } : d.providers[route.provider];
  const provider = d.factory.create(route.provider, { apiKey: creds?.apiKey, baseUrl: creds?.baseUrl });
  d.log.info('reranker ready', { reranker: `llm:${route.model}` });
  return createLlmReranker({ provider, model: route.model, onFallback: (reason) => d.log.warn('llm reranker kept the fused order', { reason }) });
}
