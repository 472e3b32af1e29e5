import type { SectionStore } from '../ports/section-store.ts';
import type { ContextPart } from '../context.ts';
import type { Collection, DocumentRecord, SectionRecord } from '../domain/types.ts';
import { countTokens } from '../ingest/chunker.ts';
import { embedderFor, embedRows } from '../ingest/embed-step.ts';
import type { ChunkRow } from '../ports/chunk-index.ts';
import { metadataPairs } from '../util/canonical-json.ts';
import { stableId } from '../util/ids.ts';

/**
 * Caption chunks make captions searchable (spec: CollectionStats.captionedCount counts "caption chunks"). Each
 * image or table caption becomes one extra chunk row of the section the item belongs to:
 *  - id `stableId(documentId, 'caption', 'image'|'table', itemId)`, so a re-run rewrites the same row;
 *  - content `Caption: <caption>`, embedded like any chunk when the collection has an embedding model;
 *  - position CAPTION_POSITION + the item's index, so in a section's chunk listing they follow the text chunks
 *    and are told apart from them by position alone.
 * They are not counted in Document.chunkCount or Section.chunkCount (those count the text's chunks). The job
 * writes the chunk before the caption, so a stored caption always has its chunk.
 */
export const CAPTION_POSITION = 1_000_000;

/** One captioned item: an image or a table chunk, and the section whose chunk it becomes. */
export interface CaptionItem {
  kind: 'image' | 'table';
  /** The image id or the table chunk id. */
  itemId: string;
  section: SectionRecord;
  /** Index among the document's caption items (images first, then tables). */
  index: number;
}

/** Id of an item's caption chunk. */
export const captionChunkId = (documentId: string, item: Pick<CaptionItem, 'kind' | 'itemId'>): string =>
  stableId(documentId, 'caption', item.kind, item.itemId);

/** The chunk row of one caption. */
export function captionChunkRow(doc: DocumentRecord, item: CaptionItem, caption: string): ChunkRow {
  const content = `Caption: ${caption}`;
  return {
    id: captionChunkId(doc.id, item),
    documentId: doc.id,
    sectionId: item.section.id,
    position: CAPTION_POSITION + item.index,
    content,
    tokenCount: countTokens(content),
    sectionTitle: item.section.title,
    sectionLevel: item.section.level,
    vector: null,
    tags: doc.tags,
    metadataPairs: metadataPairs(doc.metadata),
    canonical: doc.canonical,
  };
}

/** Embed (when the collection has an embedder) and write caption chunk rows. */
export async function upsertCaptionChunks(ctx: ContextPart<'embedders' | 'index'>, c: Collection, rows: ChunkRow[]): Promise<void> {
  if (rows.length === 0) return;
  const embedder = await embedderFor(ctx, c);
  if (embedder) await embedRows(embedder, rows);
  await ctx.index.upsertChunks(c.id, rows);
}

/** Remove every caption chunk of a document, keeping its text chunks. */
export async function deleteCaptionChunks(ctx: ContextPart<'index', SectionStore>, c: Collection, documentId: string): Promise<void> {
  const keep: string[] = [];
  for (const s of await ctx.store.listSections(documentId)) {
    for (const row of await ctx.index.chunksOfSection(c.id, s.id)) if (row.position < CAPTION_POSITION) keep.push(row.id);
  }
  await ctx.index.deleteDocumentChunksExcept(c.id, documentId, keep);
}
