import type { DocumentStore } from '../ports/document-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import { type Access, pageImageKey, requireDocument } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { DossierError, isDossierError, notFound } from '../domain/errors.ts';
import { pageOffsetsOf } from './pages.ts';
import type { DocumentImageService } from '../api/documents.ts';

/** Widths a page image is drawn at (pixels): a client asks for any width and gets the smallest of these that covers it. */
export const PAGE_IMAGE_WIDTHS = [400, 800, 1200, 1600] as const;
export const DEFAULT_PAGE_IMAGE_WIDTH = 1200;

/** The drawn width for an asked one: the smallest standard width at least as wide, else the largest (a bounded cache). */
export function pageImageWidth(asked: number | undefined): number {
  const want = asked ?? DEFAULT_PAGE_IMAGE_WIDTH;
  return PAGE_IMAGE_WIDTHS.find((w) => w >= want) ?? (PAGE_IMAGE_WIDTHS[PAGE_IMAGE_WIDTHS.length - 1] as number);
}

/** A drawn page of a document's original, and whether its collection is public (for the response's caching). */
export interface PageImage {
  png: Uint8Array;
  public: boolean;
}

/** Page images of PDFs: drawn by the page renderer (a worker thread) on first request, then served from the blob store. */
export function pageImageService(ctx: ContextPart<'blobs' | 'renderPage', DocumentStore & CollectionStore>): Pick<DocumentImageService, 'pageImage'> {
  return {
    async pageImage(access: Access, documentId: string, page: number, askedWidth?: number): Promise<PageImage> {
      const { doc, collection } = await requireDocument(ctx, access, documentId, 'read');
      const isPublic = collection.visibility === 'public';
      const offsets = await pageOffsetsOf(ctx, collection, doc.id);
      if (!offsets?.length || doc.contentType !== 'application/pdf' || !doc.storageKey) {
        throw new DossierError('unprocessable', 'The document has no pages to draw: page images exist for PDFs only');
      }
      if (!Number.isInteger(page) || page < 1) throw new DossierError('invalid_input', 'page: must be a page number (1, 2, …)');
      if (page > offsets.length) throw notFound(`Page ${page} (the document has ${offsets.length})`);
      const width = pageImageWidth(askedWidth);
      const key = pageImageKey(collection, doc.id, page, width);
      try {
        return { png: await ctx.blobs.get(key), public: isPublic };
      } catch (err) {
        if (!isDossierError(err, 'not_found')) throw err;
      }
      const bytes = await ctx.blobs.get(doc.storageKey);
      const { png } = await ctx.renderPage({ bytes, page, maxWidth: width });
      await ctx.blobs.put(key, png);
      return { png, public: isPublic };
    },
  };
}
