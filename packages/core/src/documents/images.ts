import type { DocumentStore } from '../ports/document-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import type { ImageStore } from '../ports/image-store.ts';
import { type Access, requireDocument } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { notFound } from '../domain/errors.ts';
import type { DocumentImageRecord } from '../domain/types.ts';
import { imageKey } from '../ingest/images.ts';
import { isUuid } from '../util/ids.ts';
import type { DocumentImageService } from '../api/documents.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** DocumentImage as the API shows it. */
export type ImageView = z.output<typeof responses.image>;

const imageView = ({ documentId: _d, byteSize: _b, ...view }: DocumentImageRecord): ImageView => view;

/** Images of documents and table chunks with their captions. */
export function imageService(
  ctx: ContextPart<'blobs', DocumentStore & CollectionStore & ImageStore>,
): Pick<DocumentImageService, 'images' | 'image' | 'captions'> {
  return {
    async images(access: Access, documentId: string): Promise<ImageView[]> {
      const { doc } = await requireDocument(ctx, access, documentId, 'read');
      return (await ctx.store.listImages(doc.id)).map(imageView);
    },
    /** Raw bytes and type of one image. */
    /** The bytes of an image, and whether its collection is public (a private image must not sit in shared caches). */
    async image(access: Access, documentId: string, imageId: string): Promise<{ bytes: Uint8Array; mimeType: string; public: boolean }> {
      const { doc, collection } = await requireDocument(ctx, access, documentId, 'read');
      const image = isUuid(imageId) ? (await ctx.store.listImages(doc.id)).find((i) => i.id === imageId) : undefined;
      if (!image) throw notFound('Image');
      return { bytes: await ctx.blobs.get(imageKey(collection, doc.id, image.id)), mimeType: image.mimeType, public: collection.visibility === 'public' };
    },
    /** Table chunks that have a caption, by section position then chunk position. */
    async captions(access: Access, documentId: string): Promise<{ content: string; caption: string }[]> {
      const { doc } = await requireDocument(ctx, access, documentId, 'read');
      return (await ctx.store.listTableChunks(doc.id)).flatMap((t) => (t.caption ? [{ content: t.content, caption: t.caption }] : []));
    },
  };
}
