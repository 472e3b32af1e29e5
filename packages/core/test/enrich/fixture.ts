/**
 * A real embedded Dossier (SQLite, LanceDB, the filesystem; BM25-only) in a temp directory for the post-ready
 * job tests, with a switchable model resolver, a recording logger, and a scripted model that answers summary,
 * table-caption and image-caption prompts differently.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Core does not depend on the adapters package (adapters depend on core), so the tests reach it by path.
import { createDossier, type Dossier } from '../../../adapters/src/create-dossier.ts';
import type { Logger } from '../../src/context.ts';
import type { ModelResolver } from '../../src/models/types.ts';
import type { ChatRequest } from '../../src/ports/model-provider.ts';
import type { ScopedDossier } from '../../src/scoped.ts';
import { isClaimExtraction, recordClaimsTurn } from '../../src/testing/claim-calls.ts';
import { type ScriptedCall, ScriptedModel, type ScriptedTurn, scriptedResolver } from '../../src/testing/scripted-model.ts';

export interface EnrichFixture {
  dossier: Dossier;
  local: ScopedDossier;
  /** Warn lines the Dossier logged, as `message {json}`. */
  warnings: string[];
  /** Route every model resolution to this resolver. */
  useModels(resolver: ModelResolver): void;
  /** A new collection in the local project with the given settings. */
  collection(patch?: Record<string, unknown>): Promise<string>;
  /** Upload Markdown (or other bytes) and wait (bounded) until it is ready. */
  ingest(collectionId: string, filename: string, content: string | Uint8Array): Promise<string>;
  close(): Promise<void>;
}

export async function enrichFixture(): Promise<EnrichFixture> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-enrich-'));
  let current: ModelResolver = noProvider();
  const models: ModelResolver = {
    resolve: (access, modelId, tier) => current.resolve(access, modelId, tier),
    hasProvider: (access) => current.hasProvider(access),
  };
  const warnings: string[] = [];
  const log: Logger = { info() {}, error() {}, warn: (msg, data) => warnings.push(`${msg} ${JSON.stringify(data ?? {})}`) };
  const dossier = await createDossier({ dataDir, embeddingModel: 'none', allowModelDownload: false, models, log, workers: { concurrency: 2, pollMs: 20 } });
  const local = await dossier.local();
  return {
    dossier,
    local,
    warnings,
    useModels: (r) => {
      current = r;
    },
    async collection(patch = {}) {
      const c = await local.collections.create({ name: 'Enrich' });
      if (Object.keys(patch).length > 0) await local.collections.update(c.id, patch);
      return c.id;
    },
    async ingest(collectionId, filename, content) {
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      const doc = await local.documents.add(collectionId, { filename, bytes });
      const done = await local.documents.wait(doc.id, 20_000);
      if (done.status !== 'ready') throw new Error(`${filename} did not become ready: ${done.status} ${done.errorMessage}`);
      return doc.id;
    },
    async close() {
      await dossier.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A resolver for a project without any provider: hasProvider is false and resolving fails loudly. */
export function noProvider(model?: ScriptedModel): ModelResolver {
  const inner = model ? scriptedResolver(model) : null;
  return {
    resolve: async (...args) => {
      if (!inner) throw new Error('resolve must not be called without a provider');
      return inner.resolve(...args);
    },
    hasProvider: async () => false,
  };
}

/** Which post-ready prompt a request is. */
export function promptKind(req: Pick<ChatRequest, 'messages'>): 'summary' | 'table' | 'image' | 'other' {
  const system = req.messages.find((m) => m.role === 'system')?.content ?? '';
  if (system.includes('summaries of document sections')) return 'summary';
  if (system.includes('captions of tables')) return 'table';
  if (system.includes('captions of images')) return 'image';
  return 'other';
}

/** Calls of a model other than claim extraction (which every ready document gets when a provider is configured). */
export const enrichCalls = (model: ScriptedModel): ScriptedCall[] => model.calls.filter((call) => !isClaimExtraction(call.request));

/** Answers by prompt kind (claim extraction: no claims); `extra` fields (waitFor, error…) apply to every other turn. */
export function answering(answers: Partial<Record<'summary' | 'table' | 'image', string>>, extra: Partial<ScriptedTurn> = {}): ScriptedModel {
  return new ScriptedModel((req) => {
    if (isClaimExtraction(req)) return recordClaimsTurn();
    const kind = promptKind(req);
    const text = kind === 'other' ? undefined : answers[kind];
    if (text === undefined) throw new Error(`no scripted answer for a ${kind} prompt`);
    return { text, ...extra };
  });
}
