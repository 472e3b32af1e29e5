import type { DocumentStore } from './ports/document-store.ts';
import type { CollectionStore } from './ports/collection-store.ts';
import type { ContextPart } from './context.ts';
import { DossierError, notFound } from './domain/errors.ts';
import type { Collection, DocumentRecord, Env } from './domain/types.ts';
import { isUuid } from './util/ids.ts';

/** Who is calling: a project's live or test sandbox (from its API key), or null for an anonymous caller. */
export type Access = { projectId: string; env: Env } | null;

/** What the caller wants to do; anonymous callers may only read public collections. */
export type Intent = 'read' | 'write';

/** The one place core refuses an anonymous caller: the sandbox behind the caller's key, or unauthorized. */
export function requireAccess(access: Access): NonNullable<Access> {
  if (access === null) throw new DossierError('unauthorized', 'An API key is required for this; anonymous callers may only read public collections');
  return access;
}

/** Whether the caller's sandbox owns the collection (anyone else reads only what is public of it). */
export const ownedBy = (c: Collection, access: Access): boolean => access !== null && c.projectId === access.projectId && c.env === access.env;

/** The collection when the caller may use it; not_found for unknown ids and for other projects' private data. */
export async function requireCollection(store: CollectionStore, access: Access, id: string, intent: Intent): Promise<Collection> {
  const c = isUuid(id) ? await store.getCollection(id) : null;
  if (!c || c.deletedAt) throw notFound('Collection');
  if (ownedBy(c, access)) return c;
  if (intent === 'read' && c.visibility === 'public') return c;
  requireAccess(access);
  throw notFound('Collection');
}

/** The document and its collection when the caller may use them (same rules as the collection). */
export async function requireDocument(
  ctx: ContextPart<never, DocumentStore & CollectionStore>,
  access: Access,
  id: string,
  intent: Intent,
): Promise<{ doc: DocumentRecord; collection: Collection }> {
  const doc = isUuid(id) ? await ctx.store.getDocument(id) : null;
  // A soft-deleted document (issue 43: gone from its source, in its grace period) is as gone as a deleted one.
  if (!doc || doc.deletedAt) throw notFound('Document');
  try {
    return { doc, collection: await requireCollection(ctx.store, access, doc.collectionId, intent) };
  } catch (err) {
    if (err instanceof DossierError && err.code === 'not_found') throw notFound('Document');
    throw err;
  }
}

/** Blob key prefix of everything stored for a collection. */
export const collectionPrefix = (c: Collection): string => `${c.env}/${c.projectId}/${c.id}/`;
/** Blob key of a document's original file. */
export const originalKey = (c: Collection, docId: string): string => `${collectionPrefix(c)}${docId}/original`;
/**
 * Blob key a client's presigned PUT lands on (stores with ClientUploads); confirm moves it to the original's key, so a
 * PUT made with the same URL after confirm never touches the file the pipeline reads.
 */
export const uploadStagingKey = (c: Collection, docId: string): string => `${collectionPrefix(c)}${docId}/upload`;
/** Blob key of a paged document's page start offsets into its Markdown (JSON array). */
export const pagesKey = (c: Collection, docId: string): string => `${collectionPrefix(c)}${docId}/pages.json`;
/** Blob key of a paged document's text regions: where its Markdown's text sits on the original's pages (see documents/regions.ts). */
export const regionsKey = (c: Collection, docId: string): string => `${collectionPrefix(c)}${docId}/regions.json`;
/** Blob key of a spreadsheet's cell map: which sheet row each line of its Markdown tables holds (see documents/cells.ts). */
export const cellsKey = (c: Collection, docId: string): string => `${collectionPrefix(c)}${docId}/cells.json`;
/** Blob key prefix of a document's rendered page images (a cache, cleared when the document's content is replaced). */
export const pageImagesPrefix = (c: Collection, docId: string): string => `${collectionPrefix(c)}${docId}/pages/`;
/** Blob key of a rendered page of a document's original (PNG, a cache: see documents/page-images.ts). */
export const pageImageKey = (c: Collection, docId: string, page: number, width: number): string => `${pageImagesPrefix(c, docId)}${page}-${width}.png`;
/** Blob key of a document's Markdown. */
export const markdownKey = (c: Collection, docId: string): string => `${collectionPrefix(c)}${docId}/document.md`;
