import type { SectionStore } from '../ports/section-store.ts';
import type { ImageStore } from '../ports/image-store.ts';
import { cellsKey, markdownKey, pagesKey, regionsKey } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import { type Collection, type DocumentRecord, isReplacement, type SectionRecord } from '../domain/types.ts';
import { encodeCells } from '../documents/cells.ts';
import { encodeRegions } from '../documents/regions.ts';
import { metadataPairs } from '../util/canonical-json.ts';
import { storeImages } from './images.ts';
import { type StepCarry, SMALL_MARKDOWN_BYTES } from './carry.ts';
import { countBySection, startLexicalIndexing } from './embed-step.ts';
import { sectionIdOf } from './prepare.ts';

const storedFileDiffers = (uploaded: number, stored: number) =>
  new DossierError('conversion_failed', `The stored file has ${stored} bytes, not the ${uploaded} uploaded (lost in a power cut?); upload it again`);

/**
 * Convert the stored file (in the worker pool), store Markdown and images, and build the section manifest. A small
 * document is chunked by the same worker task; its Markdown, sections and chunks are left in `carry` for the embed
 * step of the same job.
 */
export async function convertAndSection(
  ctx: ContextPart<'blobs' | 'chunk' | 'conversionSlot' | 'convert' | 'embedders' | 'index', SectionStore & ImageStore>,
  doc: DocumentRecord,
  c: Collection,
  firstAttempt = false,
  carry: StepCarry = {},
): Promise<Partial<DocumentRecord>> {
  if (!doc.storageKey) throw new DossierError('invalid_input', 'The document has no stored file');
  const storageKey = doc.storageKey;
  const prepared = await ctx.conversionSlot(doc.fileSizeBytes, async () => {
    const bytes = await ctx.blobs.get(storageKey);
    // An upload's original is stored without waiting for the disk (see uploads.ts): one a power cut cut short is
    // found here, by the size recorded with the document.
    if (doc.fileSizeBytes !== null && bytes.length !== doc.fileSizeBytes) throw storedFileDiffers(doc.fileSizeBytes, bytes.length);
    const chunking = { chunkSize: doc.chunkSize, chunkOverlap: doc.chunkOverlap, maxBytes: SMALL_MARKDOWN_BYTES };
    // A file not hashed at upload (uploaded straight to the blob store, or a large one) is hashed by the pool thread.
    return ctx.convert({ bytes, filename: doc.filename, documentId: doc.id, chunking, hash: doc.contentHash === null });
  });
  const contentHash = doc.contentHash ?? prepared.contentHash ?? null;
  if (prepared.sections.length === 0) throw new DossierError('conversion_failed', 'The document contains no text');
  const markdown = prepared.markdown;
  // The Markdown of a Markdown file uploaded as it is, is that file: one write (an inode and an fsync) fewer.
  const key = prepared.markdownIsOriginal ? storageKey : markdownKey(c, doc.id);
  if (!prepared.markdownIsOriginal) await ctx.blobs.put(key, markdown);
  const pages = prepared.pageOffsets?.length ? new TextEncoder().encode(JSON.stringify(prepared.pageOffsets)) : null;
  if (pages) await ctx.blobs.put(pagesKey(c, doc.id), pages);
  const regions = prepared.regions?.length ? encodeRegions(prepared.regions) : null;
  if (regions) await ctx.blobs.put(regionsKey(c, doc.id), regions);
  const cells = prepared.cells?.length ? encodeCells(prepared.cells) : null;
  if (cells) await ctx.blobs.put(cellsKey(c, doc.id), cells);
  // Chunked by the worker: each section's chunk count is known now and written with it (one update fewer per document).
  const chunkCounts = prepared.chunks ? countBySection(prepared.chunks) : null;
  const sections: SectionRecord[] = prepared.sections.map((d) => ({
    id: sectionIdOf(doc.id, d.position),
    documentId: doc.id,
    collectionId: c.id,
    title: d.title,
    level: d.level,
    position: d.position,
    summary: d.summary || null,
    summaryType: d.summary ? 'extractive' : null,
    chunkCount: chunkCounts?.get(sectionIdOf(doc.id, d.position)) ?? 0,
    markdownOffsetStart: d.start,
    markdownOffsetEnd: d.end,
  }));
  await ctx.store.replaceSections(doc.id, sections);
  Object.assign(carry, {
    markdown,
    sections,
    chunks: prepared.chunks,
    regions: prepared.regions ?? null,
    cells: prepared.cells ?? null,
    pageOffsets: prepared.pageOffsets?.length ? prepared.pageOffsets : null,
  });
  const images = await storeImages(ctx, c, doc, prepared.images, (p) => sectionIdOf(doc.id, p));
  await ctx.store.replaceImages(doc.id, images);
  // A document converted before (a retry) may have rows its new sections no longer match: clear them. A first run
  // has none, and a crashed first run re-creates the same ids (stable ids), which the upserts replace.
  const converted = doc.markdownStorageKey !== null;
  // A replaced document (issue 43) keeps its rows: the new ones replace them by id, and the embed step removes the
  // rest, so its previous content answers searches until then.
  if (converted && !isReplacement(doc)) await ctx.index.deleteDocument(c.id, doc.id);
  startLexicalIndexing(ctx, doc, c, firstAttempt, carry);
  const pairs = metadataPairs(doc.metadata);
  await ctx.index.upsertSections(
    c.id,
    sections.map((s) => ({
      id: s.id,
      documentId: doc.id,
      title: s.title,
      summary: s.summary ?? '',
      level: s.level,
      tags: doc.tags,
      metadataPairs: pairs,
      canonical: doc.canonical,
    })),
    { fresh: !converted && firstAttempt }, // never converted, and no crashed attempt can have written rows
  );
  // Stats and the usage meter add these up (no file listing); they are saved with the status change.
  const derivedBytes =
    (prepared.markdownIsOriginal ? 0 : markdown.length) +
    (pages?.length ?? 0) +
    (regions?.length ?? 0) +
    (cells?.length ?? 0) +
    images.reduce((n, img) => n + img.byteSize, 0);
  return { markdownStorageKey: key, derivedBytes, sectionCount: sections.length, contentType: prepared.detectedType, chunkCount: null, contentHash };
}
