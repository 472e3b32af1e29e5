import type { Access } from '../access.ts';
import type { SecretBox } from '../auth/secrets.ts';
import { DossierError } from '../domain/errors.ts';
import type { ProviderKeyRecord } from '../domain/types.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import type { ModelProviderFactory, ProviderCredentials, ProviderName } from '../ports/model-provider.ts';
import { providerLabel } from '../providers/names.ts';
import { noProviderError, providerMissingError } from './not-configured.ts';
import { displayModelId, mergeDefaults, type ModelDefaults, type ModelRoute, routeModel } from './router.ts';
import type { ModelResolver, ModelTier, ResolvedModel } from './types.ts';

/** The operator's own provider accounts (the "managed" keys), from server configuration. */
export interface ManagedProviders {
  /** `baseUrl` also applies to projects' own keys (a proxy or a test server); `apiKey` is the managed key. */
  anthropic?: { apiKey?: string; baseUrl?: string };
  openai?: { apiKey?: string; baseUrl?: string };
  /** A local Ollama server (no key). Its models serve the tier defaults only when named here. */
  ollama?: { baseUrl: string; fastModel?: string; bestModel?: string };
}

export interface ModelResolverDeps {
  store: Pick<MetadataStore, 'findProviderKeyFor' | 'listProviderKeys'>;
  secrets: SecretBox;
  factory: ModelProviderFactory;
  managed: ManagedProviders;
  /** Per-provider tier defaults, merged over DEFAULT_MODELS. */
  defaults?: Partial<ModelDefaults>;
  /** Operator-wide tier models (DOSSIER_FAST_MODEL / DOSSIER_BEST_MODEL), tried first when the project can use them. */
  tierModels?: Partial<Record<ModelTier, string>>;
  /** Tried first for defaults; otherwise provider_a (Anthropic), then provider_b (OpenAI), then Ollama. */
  preferredProvider?: ProviderName;
  /** Ollama model names that may be written without the `ollama:` prefix. */
  ollamaModels?: readonly string[];
}

/** Credentials a project can use for a provider, and whose they are. */
interface Usable {
  credentials: ProviderCredentials;
  keySource: ResolvedModel['keySource'];
}

const ORDER: readonly ProviderName[] = ['anthropic', 'openai', 'ollama'];

/** The plaintext of a stored key; one sealed under another master key is a configuration problem, said plainly. */
function unseal(secrets: SecretBox, key: ProviderKeyRecord): string {
  try {
    return secrets.decrypt(key.keyEncrypted);
  } catch (err) {
    const message = `The project's ${providerLabel(key.provider)} key ${key.id} cannot be decrypted with this server's master key: delete it and add it again`;
    throw new DossierError('not_configured', message, { cause: err });
  }
}

/** The project's own key first, then the operator's managed key; Ollama needs only its server. */
async function usableCredentials(deps: ModelResolverDeps, sandbox: NonNullable<Access>, provider: ProviderName): Promise<Usable | null> {
  if (provider === 'ollama') {
    const ollama = deps.managed.ollama;
    return ollama ? { credentials: { baseUrl: ollama.baseUrl }, keySource: 'none' } : null;
  }
  const managed = deps.managed[provider];
  const own = await deps.store.findProviderKeyFor(sandbox.projectId, sandbox.env, provider);
  if (own) return { credentials: { apiKey: unseal(deps.secrets, own), baseUrl: managed?.baseUrl }, keySource: 'project' };
  if (managed?.apiKey) return { credentials: { apiKey: managed.apiKey, baseUrl: managed.baseUrl }, keySource: 'managed' };
  return null;
}

/** The default model of a provider for a tier, or null (Ollama without configured chat models). */
function tierDefault(deps: ModelResolverDeps, defaults: ModelDefaults, provider: ProviderName, tier: ModelTier): string | null {
  const ollama = deps.managed.ollama;
  const configured =
    provider === 'ollama' ? { fast: ollama?.fastModel ?? defaults.ollama.fast, best: ollama?.bestModel ?? defaults.ollama.best } : defaults[provider];
  const other: ModelTier = tier === 'fast' ? 'best' : 'fast';
  return configured[tier] ?? configured[other] ?? null;
}

function build(deps: ModelResolverDeps, route: ModelRoute, modelId: string, usable: Usable): ResolvedModel {
  const provider = deps.factory.create(route.provider, usable.credentials);
  return { provider, providerName: route.provider, model: route.model, modelId, keySource: usable.keySource };
}

/**
 * A ModelResolver over the metadata store's provider keys and the operator's managed providers. Explicit model
 * ids are routed by prefix; a null id takes the tier default of the first provider the project can use.
 */
export function createModelResolver(deps: ModelResolverDeps): ModelResolver {
  const defaults = mergeDefaults(deps.defaults);
  const order = deps.preferredProvider ? [deps.preferredProvider, ...ORDER.filter((p) => p !== deps.preferredProvider)] : ORDER;
  const route = (id: string) => routeModel(id, { ollamaModels: deps.ollamaModels });
  for (const pinned of Object.values(deps.tierModels ?? {})) if (pinned) route(pinned); // a bad setting fails at start

  async function explicit(sandbox: NonNullable<Access>, modelId: string): Promise<ResolvedModel> {
    const r = route(modelId);
    const usable = await usableCredentials(deps, sandbox, r.provider);
    if (!usable) throw providerMissingError(sandbox.projectId, modelId, r.provider);
    return build(deps, r, modelId, usable);
  }

  /** The models a null id may take for a tier, in the order they are tried: the operator's pinned one, then each provider's default. */
  function tierCandidates(tier: ModelTier): { route: ModelRoute; modelId: string }[] {
    const pinned = deps.tierModels?.[tier];
    const candidates = pinned ? [{ route: route(pinned), modelId: pinned }] : [];
    for (const provider of order) {
      const model = tierDefault(deps, defaults, provider, tier);
      if (model) candidates.push({ route: { provider, model }, modelId: displayModelId(provider, model) });
    }
    return candidates;
  }

  async function byDefault(sandbox: NonNullable<Access>, tier: ModelTier): Promise<ResolvedModel | null> {
    for (const candidate of tierCandidates(tier)) {
      const usable = await usableCredentials(deps, sandbox, candidate.route.provider);
      if (usable) return build(deps, candidate.route, candidate.modelId, usable);
    }
    return null;
  }

  return {
    async resolve(access: NonNullable<Access>, modelId: string | null, tier: ModelTier): Promise<ResolvedModel> {
      if (modelId !== null) return explicit(access, modelId);
      const found = await byDefault(access, tier);
      if (!found) throw noProviderError(access.projectId);
      return found;
    },
    /**
     * Whether byDefault(access, 'fast') would find a provider, without unsealing a key or building a client: asked once
     * per ready document (enrich/jobs.ts), it was two key reads each. A key this server cannot unseal counts as a
     * provider here; the job that uses it says why it cannot.
     */
    async hasProvider(access: NonNullable<Access>): Promise<boolean> {
      const providers = tierCandidates('fast').map((candidate) => candidate.route.provider);
      if (providers.some((p) => (p === 'ollama' ? deps.managed.ollama !== undefined : Boolean(deps.managed[p]?.apiKey)))) return true;
      if (!providers.some((p) => p !== 'ollama')) return false;
      const keys = await deps.store.listProviderKeys(access.projectId, access.env);
      return keys.some((key) => providers.includes(key.provider));
    },
  };
}
