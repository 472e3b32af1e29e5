import type { ImageStore } from '../ports/image-store.ts';
import type { SectionStore } from '../ports/section-store.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import { type Collection, type DocumentRecord, isReplacement, type SectionRecord, type TableChunkRecord } from '../domain/types.ts';
import type { ChunkRow } from '../ports/chunk-index.ts';
import type { Embedder } from '../ports/embedder.ts';
import { cellsOf } from '../documents/cells.ts';
import { pageOffsetsOf } from '../documents/pages.ts';
import { encodePositions, locatePassage, regionsOf } from '../documents/regions.ts';
import { metadataPairs } from '../util/canonical-json.ts';
import type { IndexedChunks, StepCarry } from './carry.ts';
import type { DraftChunkRow } from './chunk-document.ts';
import { batcherOf } from './embed-batcher.ts';

const UPSERT_BATCH = 2000;
/** Chunk drafts turned into rows between two turns of the event loop. */
const DRAFT_SLICE = 1000;

/** The document's chunk drafts: those the conversion worker made, else tokenized in the chunking runner (a worker thread). */
async function draftsOf(
  ctx: ContextPart<'blobs' | 'chunk', SectionStore>,
  doc: DocumentRecord,
  carry: StepCarry,
): Promise<{ drafts: DraftChunkRow[]; sections: SectionRecord[] }> {
  const sections = carry.sections ?? (await ctx.store.listSections(doc.id));
  if (carry.chunks) return { drafts: carry.chunks, sections };
  const markdown = carry.markdown ?? (await ctx.blobs.get(doc.markdownStorageKey ?? ''));
  const drafts = await ctx.chunk({
    documentId: doc.id,
    markdown,
    sections: sections.map((s) => ({ id: s.id, position: s.position, start: s.markdownOffsetStart, end: s.markdownOffsetEnd })),
    chunkSize: doc.chunkSize,
    chunkOverlap: doc.chunkOverlap,
  });
  return { drafts, sections };
}

/** Where a chunk's characters are on the original: its boxes (PDFs), else its pages alone (slides), its cells (spreadsheets), else nothing. */
type Locator = (start: number, end: number) => string | null;

/** The document's locator, from what the conversion left in the carry, else from the stored regions, page offsets and cells. */
async function locatorFor(ctx: ContextPart<'blobs'>, doc: DocumentRecord, c: Collection, carry: StepCarry): Promise<Locator> {
  const [regions, pageOffsets, cells] = await Promise.all([
    carry.regions !== undefined ? carry.regions : regionsOf(ctx, c, doc.id),
    carry.pageOffsets !== undefined ? carry.pageOffsets : pageOffsetsOf(ctx, c, doc.id),
    carry.cells !== undefined ? carry.cells : cellsOf(ctx, c, doc.id),
  ]);
  return (start, end) => {
    const at = locatePassage({ regions, pageOffsets, cells }, start, end);
    return at ? encodePositions(at) : null;
  };
}

/** Chunk rows of every section (vectors not yet set), with the table chunks among them and, for a paged original, their positions. */
async function chunkSections(
  doc: DocumentRecord,
  drafts: DraftChunkRow[],
  sections: SectionRecord[],
  locate: Locator,
): Promise<{ rows: ChunkRow[]; tables: TableChunkRecord[] }> {
  const pairs = metadataPairs(doc.metadata);
  const positionOf = new Map(sections.map((s) => [s.id, s.position]));
  const byId = new Map(sections.map((s) => [s.id, s]));
  const rows: ChunkRow[] = [];
  const tables: TableChunkRecord[] = [];
  for (const [index, d] of drafts.entries()) {
    // A pathological document has tens of thousands of chunks: let the event loop run between slices of them.
    if (index > 0 && index % DRAFT_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const { table, ...chunk } = d;
    const section = byId.get(d.sectionId);
    const positions = locate(d.charStart, d.charEnd);
    rows.push({
      ...chunk,
      documentId: doc.id,
      sectionTitle: section?.title ?? '',
      sectionLevel: section?.level ?? null,
      vector: null,
      tags: doc.tags,
      metadataPairs: pairs,
      canonical: doc.canonical,
      positions,
    });
    if (table) {
      tables.push({
        chunkId: d.id,
        documentId: doc.id,
        sectionId: d.sectionId,
        sectionPosition: positionOf.get(d.sectionId) ?? 0,
        chunkPosition: d.position,
        content: d.content,
        caption: null,
      });
    }
  }
  return { rows, tables };
}

/** The collection's embedder, or null for a lexical-only collection. */
export async function embedderFor(ctx: ContextPart<'embedders'>, c: Collection): Promise<Embedder | null> {
  if (c.embeddingModel === 'none') return null;
  const embedder = await ctx.embedders.get(c.embeddingModel);
  if (!embedder) throw new DossierError('unavailable', `Embedding model '${c.embeddingModel}' is not available`, { retryable: true });
  return embedder;
}

/** Embed rows in the embedder's batch size, in place; other documents' rows may share the calls (EmbedBatcher). */
export async function embedRows(embedder: Embedder, rows: ChunkRow[]): Promise<void> {
  const batcher = batcherOf(embedder);
  for (let i = 0; i < rows.length; i += embedder.maxBatchSize) {
    const batch = rows.slice(i, i + embedder.maxBatchSize);
    const vectors = await batcher.embed(batch.map((r) => (r.sectionTitle ? `${r.sectionTitle}\n${r.content}` : r.content)));
    batch.forEach((r, j) => {
      r.vector = vectors[j] ?? null;
    });
  }
}

/** Chunk each section, embed the chunks when the collection has a model, and write them to the index. */
async function indexChunks(
  ctx: ContextPart<'blobs' | 'chunk' | 'embedders' | 'index', SectionStore>,
  doc: DocumentRecord,
  c: Collection,
  firstAttempt: boolean,
  carry: StepCarry,
): Promise<IndexedChunks> {
  const { drafts, sections } = await draftsOf(ctx, doc, carry);
  const { rows, tables } = await chunkSections(doc, drafts, sections, await locatorFor(ctx, doc, c, carry));
  const embedder = await embedderFor(ctx, c);
  if (embedder) await embedRows(embedder, rows);
  // Convert cleared the rows of any earlier run, so on this job's first attempt the ids are new and may be
  // appended; a re-run after a crash writes the same ids again, replacing them, so no duplicates and no leftovers.
  // A replaced document's earlier rows are still there (issue 43): its rows are replaced by id, the leftovers (chunks,
  // and section rows of sections the new content no longer has) removed.
  const replacing = isReplacement(doc);
  for (let i = 0; i < rows.length; i += UPSERT_BATCH)
    await ctx.index.upsertChunks(c.id, rows.slice(i, i + UPSERT_BATCH), { fresh: firstAttempt && !replacing });
  if (replacing)
    await ctx.index.deleteDocumentChunksExcept(
      c.id,
      doc.id,
      rows.map((r) => r.id),
      sections.map((s) => s.id),
    );
  return { rows, tables, sections };
}

/**
 * Called by the conversion step once the index holds no rows of an earlier run: when the collection has no embedding
 * model and the conversion worker chunked the document, its chunk rows start on their way to the index now, beside the
 * section rows, instead of after the `sectioned` status (each index write waits up to one commit interval, and a
 * small document waited for two in turn). The embed step waits for them. Rows written early are harmless if the job
 * stops before the embed step: a re-run writes the same ids again, and search answers only from ready documents.
 */
export function startLexicalIndexing(
  ctx: ContextPart<'blobs' | 'chunk' | 'embedders' | 'index', SectionStore>,
  doc: DocumentRecord,
  c: Collection,
  firstAttempt: boolean,
  carry: StepCarry,
): void {
  if (c.embeddingModel !== 'none' || !carry.chunks || !carry.sections) return;
  const indexing = indexChunks(ctx, doc, c, firstAttempt, carry);
  indexing.catch(() => {}); // awaited (and its error reported) by the embed step; a stopped job never gets there
  carry.indexing = indexing;
}

/** Chunks per section id. */
export function countBySection(chunks: readonly { sectionId: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const chunk of chunks) counts.set(chunk.sectionId, (counts.get(chunk.sectionId) ?? 0) + 1);
  return counts;
}

/** The embed step: the chunk rows in the index, with each section's chunk count and the document's table chunks. */
export async function embedAndIndex(
  ctx: ContextPart<'blobs' | 'chunk' | 'embedders' | 'index', SectionStore & ImageStore>,
  doc: DocumentRecord,
  c: Collection,
  firstAttempt = false,
  carry: StepCarry = {},
): Promise<Partial<DocumentRecord>> {
  const { rows, tables, sections } = await (carry.indexing ?? indexChunks(ctx, doc, c, firstAttempt, carry));
  if (!carry.chunks) {
    const counts: Record<string, number> = Object.fromEntries(sections.map((s) => [s.id, 0]));
    for (const [sectionId, count] of countBySection(rows)) counts[sectionId] = count;
    await ctx.store.setSectionChunkCounts(counts);
  }
  await ctx.store.replaceTableChunks(doc.id, tables);
  return { chunkCount: rows.length };
}
