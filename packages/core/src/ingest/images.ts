import { collectionPrefix } from '../access.ts';
import type { ContextPart } from '../context.ts';
import type { Collection, DocumentImageRecord, DocumentRecord } from '../domain/types.ts';
import { sniffType } from './converters/sniff.ts';
import type { PreparedImage } from './prepare.ts';

/** Blob key of a stored image. */
export const imageKey = (c: Collection, documentId: string, imageId: string): string => `${collectionPrefix(c)}${documentId}/images/${imageId}`;

/** Store each image's bytes and return its records (section ids from the section positions). */
export async function storeImages(
  ctx: ContextPart<'blobs'>,
  c: Collection,
  doc: DocumentRecord,
  images: PreparedImage[],
  sectionIdAt: (position: number) => string,
): Promise<DocumentImageRecord[]> {
  const records: DocumentImageRecord[] = [];
  for (const img of images) {
    await ctx.blobs.put(imageKey(c, doc.id, img.id), img.bytes);
    const sniffed = sniffType(img.bytes, '');
    records.push({
      id: img.id,
      documentId: doc.id,
      sectionId: img.sectionPosition === null ? null : sectionIdAt(img.sectionPosition),
      placeholder: img.placeholder,
      mimeType: sniffed.startsWith('image/') ? sniffed : img.mimeType,
      caption: null,
      position: records.length,
      byteSize: img.bytes.length,
    });
  }
  return records;
}
