import type { DocumentImageRecord, SectionRecord, TableChunkRecord } from '../domain/types.ts';
import { imageKey } from '../ingest/images.ts';
import { type CaptionItem, captionChunkRow, upsertCaptionChunks } from './caption-chunks.ts';
import { imageCaptionPrompt, tableCaptionPrompt } from './prompts.ts';
import { ask, type EnrichRun, isRetryable } from './run.ts';

/** Image types vision models accept (Anthropic and OpenAI alike); others (EMF, TIFF, SVG…) stay uncaptioned. */
const VISION_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Largest image sent: Anthropic's per-image limit (OpenAI allows 20 MB). Larger images stay uncaptioned. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Most captions one document gets (bounds model cost on a deck of hundreds of pictures). */
export const MAX_CAPTIONS_PER_DOCUMENT = 200;

/** An image or table chunk to caption: its chunk placement, its caption so far, and how to get and keep one. */
interface Target {
  item: CaptionItem;
  caption: string | null;
  /** False when the model cannot take it (image type or size). */
  captionable: boolean;
  describe(): Promise<string>;
  save(caption: string): Promise<void>;
}

function imageTarget(run: EnrichRun, img: DocumentImageRecord, section: SectionRecord, index: number): Target {
  const { ctx, doc, collection } = run;
  const title = img.sectionId ? section.title : null;
  return {
    item: { kind: 'image', itemId: img.id, section, index },
    caption: img.caption,
    captionable: VISION_TYPES.has(img.mimeType) && img.byteSize <= MAX_IMAGE_BYTES,
    describe: async () => ask(run, imageCaptionPrompt(doc.filename, title, img.mimeType, await ctx.blobs.get(imageKey(collection, doc.id, img.id)))),
    save: (caption) => ctx.store.setImageCaption(img.id, caption),
  };
}

function tableTarget(run: EnrichRun, t: TableChunkRecord, section: SectionRecord, index: number): Target {
  return {
    item: { kind: 'table', itemId: t.chunkId, section, index },
    caption: t.caption,
    captionable: true,
    describe: () => ask(run, tableCaptionPrompt(run.doc.filename, section.title, t.content)),
    save: (caption) => run.ctx.store.setTableChunkCaption(t.chunkId, caption),
  };
}

/** Every image (first) and table chunk of the document as a caption target. */
async function targetsOf(run: EnrichRun): Promise<Target[]> {
  const { ctx, doc } = run;
  const sections = await ctx.store.listSections(doc.id);
  const first = sections[0];
  if (!first) return [];
  const byId = new Map(sections.map((s) => [s.id, s]));
  const images = await ctx.store.listImages(doc.id);
  const tables = await ctx.store.listTableChunks(doc.id);
  return [
    ...images.map((img, i) => imageTarget(run, img, byId.get(img.sectionId ?? '') ?? first, i)),
    ...tables.map((t, j) => tableTarget(run, t, byId.get(t.sectionId) ?? first, images.length + j)),
  ];
}

/**
 * A new caption for the target, '' for none. A non-retryable failure on an image (most likely a model without
 * vision) is logged and ends image captioning for this run, so tables are still captioned; any other failure is
 * the job's (retried or given up by its policy).
 */
async function describe(run: EnrichRun, t: Target, state: { imagesRejected: boolean }): Promise<string> {
  if (t.item.kind === 'image' && state.imagesRejected) return '';
  try {
    return await t.describe();
  } catch (err) {
    if (t.item.kind !== 'image' || isRetryable(err) || run.signal.aborted) throw err;
    state.imagesRejected = true;
    run.ctx.log.warn('image captions skipped: the model rejected an image', { documentId: run.doc.id, error: String(err) });
    return '';
  }
}

/**
 * The `enrich.captions` job's work: a 1–2 sentence caption for each image (through a vision-capable model, the
 * image sent as a content part) and each table chunk, stored on the record and added to the chunk index as a
 * caption chunk (enrich/caption-chunks.ts). The chunk is written before the caption, so a stored caption always
 * has its chunk; captions from an earlier run get their chunks rewritten (an embed re-run drops them). Returns
 * the number of new captions.
 */
export async function captionDocument(run: EnrichRun): Promise<number> {
  const { ctx, collection } = run;
  const all = await targetsOf(run);
  const kept = all.filter((t) => t.caption !== null);
  if (kept.length > 0)
    await upsertCaptionChunks(
      ctx,
      collection,
      kept.map((t) => captionChunkRow(run.doc, t.item, t.caption!)),
    );
  const todo = all.filter((t) => t.caption === null && t.captionable).slice(0, Math.max(0, MAX_CAPTIONS_PER_DOCUMENT - kept.length));
  const state = { imagesRejected: false };
  let written = 0;
  for (const t of todo) {
    const caption = await describe(run, t, state);
    if (!caption) continue;
    const now = await run.current();
    if (!now) break;
    await upsertCaptionChunks(ctx, collection, [captionChunkRow(now, t.item, caption)]);
    await t.save(caption);
    written++;
  }
  if (kept.length + written > 0) await ctx.index.refresh(collection.id);
  return written;
}
