import type { DossierContext } from '../context.ts';
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
  const wanted = { chunkSize: patch.chunkSize ?? c.chunkSize, chunkOverlap: patch.chunkOverlap ?? c.chunkOverlap, embeddingModel: patch.embeddingModel ?? c.embeddingModel };
  const changed = wanted.chunkSize !== c.chunkSize || wanted.chunkOverlap !== c.chunkOverlap || wanted.embeddingModel !== c.embeddingModel;
  if (!changed) return null;
  if (wanted.chunkOverlap >= wanted.chunkSize) throw invalid('chunkOverlap must be smaller than chunkSize');
  return wanted;
}

const UPSERT_BATCH = 2000;

/** One document's chunk rows under the shadow's chunking, from its stored Markdown and sections (sections do not depend on chunking). */
async function shadowRows(ctx: DossierContext, doc: DocumentRecord, settings: ReindexSettings): Promise<ChunkRow[]> {
  if (!doc.markdownStorageKey) return [];
  const sections = await ctx.store.listSections(doc.id);
  const drafts = await ctx.chunk({
    documentId: doc.id, markdown: await ctx.blobs.get(doc.markdownStorageKey), chunkSize: settings.chunkSize, chunkOverlap: settings.chunkOverlap,
    sections: sections.map((s) => ({ id: s.id, position: s.position, start: s.markdownOffsetStart, end: s.markdownOffsetEnd })),
  });
  const byId = new Map(sections.map((s) => [s.id, s]));
  const pairs = metadataPairs(doc.metadata);
  return drafts.map(({ table: _table, ...chunk }) => {
    const section = byId.get(chunk.sectionId);
    return { ...chunk, documentId: doc.id, sectionTitle: section?.title ?? '', sectionLevel: section?.level ?? null, vector: null, tags: doc.tags, metadataPairs: pairs, canonical: doc.canonical, positions: null };
  });
}

/**
 * Build a shadow copy of a collection's search index with other chunking or another embedding model (issue 38): every
 * document that answers search is chunked again from its stored Markdown, embedded with the shadow's model and written
 * to an index table of its own, under an id that names no collection in the store. So nothing lists or searches it
 * (every route reads the collection from the store first), and hits keep the original documents and sections, so the
 * run scores them like the original's. `use` runs with the shadow collection; the shadow table is dropped after,
 * whatever happens. The original collection, its documents and its index are not touched.
 */
export async function withShadowCollection<T>(ctx: DossierContext, c: Collection, settings: ReindexSettings, use: (shadow: Collection) => Promise<T>): Promise<T> {
  const probe: Collection = { ...c, id: `shadow-${newId()}`, ...settings, embeddingDimension: null };
  const embedder = await embedderFor(ctx, probe).catch(() => {
    throw invalid(`Embedding model '${settings.embeddingModel}' is not available on this server`);
  });
  const shadow: Collection = { ...probe, embeddingDimension: embedder?.dimension ?? null };
  await ctx.index.createCollection(shadow.id, shadow.embeddingDimension);
  try {
    const docs = (await ctx.store.findDocuments(c.id, {})).filter(answersSearch);
    for (const doc of docs) {
      const rows = await shadowRows(ctx, doc, settings);
      if (embedder) await embedRows(embedder, rows);
      for (let i = 0; i < rows.length; i += UPSERT_BATCH) await ctx.index.upsertChunks(shadow.id, rows.slice(i, i + UPSERT_BATCH), { fresh: true });
    }
    await ctx.index.refresh(shadow.id);
    return await use(shadow);
  } finally {
    await ctx.index.dropCollection(shadow.id).catch((err) => ctx.log.warn('shadow index not dropped', { collectionId: c.id, shadowId: shadow.id, error: String(err) }));
  }
}
