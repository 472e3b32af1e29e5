import type { DossierContext } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { Collection, DocumentRecord, SectionRecord, TableChunkRecord } from '../domain/types.ts';
import type { ChunkRow } from '../ports/chunk-index.ts';
import type { Embedder } from '../ports/embedder.ts';
import { metadataPairs } from '../util/canonical-json.ts';
import { stableId } from '../util/ids.ts';
import { chunkText } from './chunker.ts';

const UPSERT_BATCH = 2000;

/** Chunk rows of every section (vectors not yet set). */
function chunkSections(doc: DocumentRecord, markdown: string, sections: SectionRecord[]): ChunkRow[] {
  const pairs = metadataPairs(doc.metadata);
  return sections.flatMap((s) =>
    chunkText(markdown.slice(s.markdownOffsetStart, s.markdownOffsetEnd), doc.chunkSize, doc.chunkOverlap).map((ch) => ({
      id: stableId(doc.id, 'chunk', s.position, ch.position),
      documentId: doc.id,
      sectionId: s.id,
      position: ch.position,
      content: ch.content,
      tokenCount: ch.tokenCount,
      sectionTitle: s.title,
      vector: null,
      tags: doc.tags,
      metadataPairs: pairs,
      canonical: doc.canonical,
    })),
  );
}

/** A chunk is a table chunk when most of its non-blank lines are Markdown table rows. */
export function isTableChunk(content: string): boolean {
  const lines = content.split('\n').filter((l) => l.trim());
  const rows = lines.filter((l) => /^\s*\|.*\|\s*$/.test(l));
  return rows.length >= 2 && rows.length * 2 >= lines.length;
}

function tableChunks(rows: ChunkRow[], sections: SectionRecord[]): TableChunkRecord[] {
  const positionOf = new Map(sections.map((s) => [s.id, s.position]));
  return rows.filter((r) => isTableChunk(r.content)).map((r) => ({
    chunkId: r.id, documentId: r.documentId, sectionId: r.sectionId, sectionPosition: positionOf.get(r.sectionId) ?? 0,
    chunkPosition: r.position, content: r.content, caption: null,
  }));
}

/** The collection's embedder, or null for a lexical-only collection. */
export async function embedderFor(ctx: DossierContext, c: Collection): Promise<Embedder | null> {
  if (c.embeddingModel === 'none') return null;
  const embedder = await ctx.embedders.get(c.embeddingModel);
  if (!embedder) throw new DossierError('unavailable', `Embedding model '${c.embeddingModel}' is not available`, { retryable: true });
  return embedder;
}

/** Embed rows in the embedder's batch size, in place. */
export async function embedRows(embedder: Embedder, rows: ChunkRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += embedder.maxBatchSize) {
    const batch = rows.slice(i, i + embedder.maxBatchSize);
    const vectors = await embedder.embedDocuments(batch.map((r) => (r.sectionTitle ? `${r.sectionTitle}\n${r.content}` : r.content)));
    batch.forEach((r, j) => {
      r.vector = vectors[j] ?? null;
    });
  }
}

/** Chunk each section, embed the chunks, and write them to the index (replacing rows of any earlier run). */
export async function embedAndIndex(ctx: DossierContext, doc: DocumentRecord, c: Collection, firstAttempt = false): Promise<Partial<DocumentRecord>> {
  const markdown = new TextDecoder().decode(await ctx.blobs.get(doc.markdownStorageKey ?? ''));
  const sections = await ctx.store.listSections(doc.id);
  const rows = chunkSections(doc, markdown, sections);
  const embedder = await embedderFor(ctx, c);
  if (embedder) await embedRows(embedder, rows);
  // Convert cleared the rows of any earlier run, so on this job's first attempt the ids are new and may be
  // appended; a re-run after a crash writes the same ids again, replacing them, so no duplicates and no leftovers.
  for (let i = 0; i < rows.length; i += UPSERT_BATCH) await ctx.index.upsertChunks(c.id, rows.slice(i, i + UPSERT_BATCH), { fresh: firstAttempt });
  const counts: Record<string, number> = Object.fromEntries(sections.map((s) => [s.id, 0]));
  for (const r of rows) counts[r.sectionId] = (counts[r.sectionId] ?? 0) + 1;
  await ctx.store.setSectionChunkCounts(counts);
  await ctx.store.replaceTableChunks(doc.id, tableChunks(rows, sections));
  return { chunkCount: rows.length };
}
