import { cellsKey, originalKey, pageImagesPrefix, pagesKey, regionsKey } from '../access.ts';
import { type DossierContext, setDocumentStatus } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { Collection, DocumentRecord, Metadata } from '../domain/types.ts';
import { forgetDuplicate } from '../duplicates/service.ts';
import { enqueueIngest } from '../ingest/pipeline.ts';
import { requireQuotaRoom } from '../usage/quotas.ts';
import { normalizeTags, safeFilename } from './view.ts';

/**
 * Where new content is: its bytes (a direct upload), or a blob already stored under another key (a presigned upload,
 * or a file a source streamed into the store), moved over the original without passing through this process.
 */
export type NewContent = { bytes: Uint8Array } | { storedAt: string; sizeBytes: number };

const sizeOf = (content: NewContent): number => ('bytes' in content ? content.bytes.length : content.sizeBytes);

/** The new content of a document that came from a source path (issue 43). */
export type Replacement = NewContent & {
  filename: string;
  contentHash: string | null;
  contentType?: string;
  sourceStamp?: string;
  tags?: string[];
  metadata?: Metadata;
};

async function storeOver(ctx: DossierContext, key: string, content: NewContent): Promise<void> {
  if ('bytes' in content) await ctx.blobs.put(key, content.bytes, { flush: false });
  else await ctx.blobs.move(content.storedAt, key);
}

export const stillProcessing = (doc: DocumentRecord) =>
  new DossierError(
    'conflict',
    `Document ${doc.id} is still processing its version ${doc.version ?? 1} (${doc.status}); send the new content once it is ready or in error`,
  );

/** True when the stored document already holds this content (nothing to do but perhaps note the new stamp). */
export const sameContent = (doc: DocumentRecord, hash: string | null): boolean => hash !== null && doc.contentHash === hash && doc.status !== 'error';

/**
 * Replace a document's content in place: same id, the next version. The new file is stored over the original and the
 * pipeline runs again; until its new chunk rows replace the old ones (same stable ids) the previous content keeps
 * answering searches (answersSearch), so a search never finds neither. Sections, chunks, claims and the duplicate
 * group are recomputed; `document.updated` is recorded when the new version is ready.
 */
export async function replaceDocumentContent(ctx: DossierContext, c: Collection, doc: DocumentRecord, file: Replacement): Promise<DocumentRecord> {
  if (doc.status !== 'ready' && doc.status !== 'error') throw stillProcessing(doc);
  await requireQuotaRoom(ctx, c, { documents: 0, bytes: Math.max(0, sizeOf(file) - (doc.fileSizeBytes ?? 0)) });
  await forgetDuplicate(ctx, c, doc);
  // Nothing derived from the previous content may linger: its claims (and the collection's claim map) and its
  // duplicate fingerprints go now; the pipeline and the post-ready jobs derive the new ones.
  await ctx.store.deleteDocumentClaims(doc.id);
  await ctx.store.clearClaimMap(c.id);
  await ctx.store.deleteFingerprints(doc.id);
  const key = originalKey(c, doc.id);
  await storeOver(ctx, key, file);
  // Page offsets, regions and cells of the previous content would be read as this one's if the new file has none, and
  // its drawn pages would be served as this one's.
  await Promise.all([pagesKey, regionsKey, cellsKey].map((key) => ctx.blobs.delete(key(c, doc.id))));
  await ctx.blobs.deletePrefix(pageImagesPrefix(c, doc.id));
  const patch: Partial<DocumentRecord> = {
    filename: safeFilename(file.filename),
    contentType: file.contentType ?? null,
    fileSizeBytes: sizeOf(file),
    contentHash: file.contentHash,
    storageKey: key,
    sourceStamp: file.sourceStamp ?? null,
    version: (doc.version ?? 1) + 1,
    errorMessage: null,
    ...(file.tags ? { tags: normalizeTags(file.tags) } : {}),
    ...(file.metadata ? { metadata: file.metadata } : {}),
  };
  const updated = await setDocumentStatus(ctx, doc, 'uploading', patch, c);
  await enqueueIngest(ctx, doc.id);
  return updated;
}
