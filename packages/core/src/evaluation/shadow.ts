import type { DocumentStore } from '../ports/document-store.ts';
import type { SectionStore } from '../ports/section-store.ts';
import type { ContextPart } from '../context.ts';
import { invalid } from '../domain/errors.ts';
import { answersSearch, type Collection, type DocumentRecord } from '../domain/types.ts';
import { embedderFor, embedRows } from '../ingest/embed-step.ts';
import type { ChunkRow } from '../ports/chunk-index.ts';
import { metadataPairs } from '../util/canonical-json.ts';
import { newId } from '../util/ids.ts';
import type { EvaluationSettingsPatch } from './schemas.ts';

/** The settings that need the collection re-indexed to be tried: chunking and the embedding model. */
export interface ReindexSettings {
  chunkSize: number;
  chunkOverlap: number;
  embeddingModel: string;
}

/** The re-indexing settings of a run: its patch over the collection's; null when the patch changes none of them. */
export function reindexSettingsOf(c: Collection, patch: EvaluationSettingsPatch = {}): ReindexSettings | null {
  const wanted = {
    chunkSize: patch.chunkSize ?? c.chunkSize,
    chunkOverlap: patch.chunkOverlap ?? c.chunkOverlap,
    embeddingModel: patch.embeddingModel ?? c.embeddingModel,
  };
  const changed = wanted.chunkSize !== c.chunkSize || wanted.chunkOverlap !== c.chunkOverlap || wanted.embeddingModel !== c.embeddingModel;
  if (!changed) return null;
  if (wanted.chunkOverlap >= wanted.chunkSize) throw invalid('chunkOverlap must be smaller than chunkSize');
  return wanted;
}

const UPSERT_BATCH = 2000;

/** One document's chunk rows under the shadow's chunking, from its stored Markdown and sections (sections do not depend on chunking). */
async function shadowRows(ctx: ContextPart<'blobs' | 'chunk', SectionStore>, doc: DocumentRecord, settings: ReindexSettings): Promise<ChunkRow[]> {
  if (!doc.markdownStorageKey) return [];
  const sections = await ctx.store.listSections(doc.id);
  const drafts = await ctx.chunk({
    documentId: doc.id,
    markdown: await ctx.blobs.get(doc.markdownStorageKey),
    chunkSize: settings.chunkSize,
    chunkOverlap: settings.chunkOverlap,
    sections: sections.map((s) => ({ id: s.id, position: s.position, start: s.markdownOffsetStart, end: s.markdownOffsetEnd })),
  });
  const byId = new Map(sections.map((s) => [s.id, s]));
  const pairs = metadataPairs(doc.metadata);
  return drafts.map(({ table: _table, ...chunk }) => {
    const section = byId.get(chunk.sectionId);
    return {
      ...chunk,
      documentId: doc.id,
      sectionTitle: section?.title ?? '',
      sectionLevel: section?.level ?? null,
      vector: null,
      tags: doc.tags,
      metadataPairs: pairs,
      canonical: doc.canonical,
      positions: null,
    };
  });
}

/** Progress hooks of a shadow build: the table's id before it is created (so a crash cannot lose it), and documents indexed. */
export interface ShadowHooks {
  onTable?: (shadowIndex: string) => Promise<void>;
  onIndexed?: (done: number, total: number) => Promise<void>;
}

/** The shadow's embedder (null for no model); a model this server does not have is refused as bad input. */
export async function shadowEmbedder(ctx: ContextPart<'embedders'>, c: Collection, settings: ReindexSettings) {
  return embedderFor(ctx, { ...c, ...settings, embeddingDimension: null }).catch(() => {
    throw invalid(`Embedding model '${settings.embeddingModel}' is not available on this server`);
  });
}

/** Drop a shadow index table (a failure is logged: a table left behind only costs disk, and the next attempt retries). */
export async function dropShadow(ctx: ContextPart<'index' | 'log'>, shadowIndex: string): Promise<void> {
  await ctx.index.dropCollection(shadowIndex).catch((err) => ctx.log.warn('shadow index not dropped', { shadowId: shadowIndex, error: String(err) }));
}

/**
 * Build a shadow copy of a collection's search index with other chunking or another embedding model (issue 38): every
 * document that answers search is chunked again from its stored Markdown, embedded with the shadow's model and written
 * to an index table of its own, under an id that names no collection in the store. So nothing lists or searches it
 * (every route reads the collection from the store first), and hits keep the original documents and sections, so the
 * run scores them like the original's. `use` runs with the shadow collection; the shadow table is dropped after,
 * whatever happens. The original collection, its documents and its index are not touched. Runs in a job (jobs.ts).
 */
export async function withShadowCollection<T>(
  ctx: ContextPart<'blobs' | 'chunk' | 'embedders' | 'index' | 'log', DocumentStore & SectionStore>,
  c: Collection,
  settings: ReindexSettings,
  use: (shadow: Collection) => Promise<T>,
  hooks: ShadowHooks = {},
): Promise<T> {
  const embedder = await shadowEmbedder(ctx, c, settings);
  const shadow: Collection = { ...c, id: `shadow-${newId()}`, ...settings, embeddingDimension: embedder?.dimension ?? null };
  await hooks.onTable?.(shadow.id);
  try {
    await ctx.index.createCollection(shadow.id, shadow.embeddingDimension);
    const docs = (await ctx.store.findDocuments(c.id, {})).filter(answersSearch);
    for (const [position, doc] of docs.entries()) {
      const rows = await shadowRows(ctx, doc, settings);
      if (embedder) await embedRows(embedder, rows);
      for (let i = 0; i < rows.length; i += UPSERT_BATCH) await ctx.index.upsertChunks(shadow.id, rows.slice(i, i + UPSERT_BATCH), { fresh: true });
      await hooks.onIndexed?.(position + 1, docs.length);
    }
    await ctx.index.refresh(shadow.id);
    return await use(shadow);
  } finally {
    await dropShadow(ctx, shadow.id);
  }
}
