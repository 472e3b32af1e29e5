/**
 * The documents group of the public API (`dossier.documents`): uploads, reading, listing, patching, deletion.
 * Reads of a public collection's documents are open to anonymous callers (`access` null); writes need the owner.
 * A document of another project's private collection answers `not_found`.
 */
import type { Access } from '../access.ts';
import type { PageImage } from '../documents/page-images.ts';
import type { ImageView } from '../documents/images.ts';
import type { SectionView } from '../documents/manage.ts';
import type { PageSpan } from '../documents/pages.ts';
import type { DirectUpload, UploadUrlResult } from '../documents/uploads.ts';
import type { DocumentView } from '../documents/view.ts';
import type { ManifestEntry } from '../ports/source-store.ts';
import type { DocumentPatchInput, FilenameSearchInput, ListDocumentsInput, ManifestQueryInput, UploadUrlInput } from '../schemas.ts';

/** Reading, patching, deleting and re-running documents. */
export interface DocumentService {
  /**
   * A page of the collection's documents (filter by status and tags), with the total.
   * @throws {DossierError} `not_found` (collection), `invalid_input` (bad query).
   * @example
   * const { documents, total } = await dossier.documents.list(access, collectionId, { status: 'error', limit: 20 });
   */
  list(access: Access, collectionId: string, raw?: ListDocumentsInput): Promise<{ documents: DocumentView[]; total: number }>;
  /**
   * One document with its status and counts.
   * @throws {DossierError} `not_found`.
   */
  get(access: Access, id: string): Promise<DocumentView>;
  /**
   * Resolve when the document is ready or in error (woken by its events, not by polling alone).
   * @throws {DossierError} `not_found`, `timeout` (after `timeoutMs`, default five minutes).
   * @example
   * const doc = await dossier.documents.wait(access, uploaded.id, 60_000);
   */
  wait(access: Access, id: string, timeoutMs?: number, signal?: AbortSignal): Promise<DocumentView>;
  /**
   * The document converted to Markdown.
   * @throws {DossierError} `not_found` (unknown document, or processing has not produced the Markdown yet).
   */
  markdown(access: Access, id: string): Promise<string>;
  /**
   * Sections in order; for paged documents each also says which pages it spans.
   * @throws {DossierError} `not_found`.
   */
  sections(access: Access, id: string): Promise<(SectionView & Partial<PageSpan>)[]>;
  /**
   * Delete a document: its record, file, sections, chunks, images and claims.
   * @throws {DossierError} `not_found`.
   */
  remove(access: Access, id: string): Promise<void>;
  /**
   * Delete several documents of a collection (`{ documentIds }`).
   * @throws {DossierError} `not_found` (collection), `invalid_input` (bad body).
   */
  batchRemove(access: Access, collectionId: string, raw: unknown): Promise<void>;
  /**
   * Run the pipeline again for a document in error.
   * @throws {DossierError} `not_found`, `invalid_input` (not in error, or no stored file).
   */
  retry(access: Access, id: string): Promise<DocumentView>;
  /**
   * Run the pipeline again for every document of the collection in error.
   * @throws {DossierError} `not_found` (collection).
   */
  retryFailed(access: Access, collectionId: string): Promise<DocumentView[]>;
  /**
   * Change a document's tags and metadata (merged, or replaced with `replaceMetadata`).
   * @throws {DossierError} `not_found`, `invalid_input`.
   * @example
   * await dossier.documents.patch(access, collectionId, docId, { tags: ['policy'], metadata: { year: 2024 } });
   */
  patch(access: Access, collectionId: string, docId: string, raw: DocumentPatchInput): Promise<DocumentView>;
  /**
   * Apply one patch to several documents (`{ documentIds, ...patch }`).
   * @throws {DossierError} `not_found`, `invalid_input`.
   */
  bulkPatch(access: Access, collectionId: string, raw: unknown): Promise<DocumentView[]>;
  /**
   * Issue 43: the collection's documents that came from a source path, by path, a page at a time.
   * @throws {DossierError} `not_found` (collection), `invalid_input` (bad query).
   */
  manifest(access: Access, collectionId: string, raw?: ManifestQueryInput): Promise<{ entries: ManifestEntry[]; nextCursor: string | null }>;
  /**
   * The tags used in the collection with their document counts, and whether any document has metadata.
   * @throws {DossierError} `not_found` (collection).
   */
  tags(access: Access, collectionId: string): Promise<{ tags: { name: string; count: number }[]; hasMetadata: boolean }>;
}

/** Getting files in: direct uploads, and presigned upload URLs with their confirmation. */
export interface UploadService {
  /**
   * Reserve a document and get a URL to PUT its bytes to; a content-hash hit returns the existing document, no URL.
   * @throws {DossierError} `not_found` (collection), `invalid_input`, `conflict` (the source path's document is still
   *   processing), `payment_required` (plan quota).
   */
  createUploadUrl(access: Access, collectionId: string, raw: UploadUrlInput): Promise<UploadUrlResult>;
  /**
   * Store the body of a PUT to a presigned URL; the document stays pending until confirmed. The URL is single
   * use (a second PUT is a conflict) and bound to the size declared at upload-url: a body of another length is
   * refused (`contentLength` lets a wrong Content-Length fail before any byte is read).
   * @throws {DossierError} `not_found` (unknown token), `conflict` (used URL, already confirmed), `payload_too_large`,
   *   `invalid_input` (size differs from the declared one).
   */
  receiveUpload(token: string, body: AsyncIterable<Uint8Array>, maxBytes: number, contentLength?: number | null): Promise<void>;
  /**
   * Confirm a presigned upload: the stored bytes enter the pipeline.
   * @throws {DossierError} `not_found`, `conflict` (already confirmed), `invalid_input` (nothing was uploaded).
   */
  confirm(access: Access, collectionId: string, docId: string, raw?: unknown): Promise<DocumentView>;
  /**
   * Confirm several presigned uploads at once (`{ documentIds }`).
   * @throws {DossierError} as `confirm`.
   */
  batchConfirm(access: Access, collectionId: string, raw: unknown): Promise<DocumentView[]>;
  /**
   * Direct upload: store the bytes and start the pipeline (202 Document), when one of the process's upload slots is
   * free (many uploads at once would hold the event loop for long turns). Processing goes on in the background.
   * @throws {DossierError} `not_found` (collection), `invalid_input`, `unsupported_format`, `payload_too_large`,
   *   `conflict` (the source path's document is still processing), `payment_required` (plan quota).
   * @example
   * const doc = await dossier.documents.upload(access, collectionId, { filename: 'a.md', bytes: new TextEncoder().encode('# A') });
   */
  upload(access: Access, collectionId: string, file: DirectUpload): Promise<DocumentView>;
}

/** The images of a document: embedded images, table captions, and drawn pages of PDFs. */
export interface DocumentImageService {
  /**
   * The images extracted from the document, with their captions.
   * @throws {DossierError} `not_found`.
   */
  images(access: Access, documentId: string): Promise<ImageView[]>;
  /**
   * The bytes of an image, and whether its collection is public (a private image must not sit in shared caches).
   * @throws {DossierError} `not_found` (document or image).
   */
  image(access: Access, documentId: string, imageId: string): Promise<{ bytes: Uint8Array; mimeType: string; public: boolean }>;
  /**
   * Table chunks that have a caption, by section position then chunk position.
   * @throws {DossierError} `not_found`.
   */
  captions(access: Access, documentId: string): Promise<{ content: string; caption: string }[]>;
  /**
   * A page of a PDF drawn as PNG at the smallest standard width covering `askedWidth` (drawn once, then cached).
   * @throws {DossierError} `not_found` (document or page), `unprocessable` (not a PDF), `invalid_input` (bad page),
   *   `unavailable` (no page renderer configured).
   */
  pageImage(access: Access, documentId: string, page: number, askedWidth?: number): Promise<PageImage>;
}

/** `dossier.documents`: upload, list, read (Markdown, sections, pages, images), patch and delete documents. */
export interface DocumentsApi extends DocumentService, UploadService, DocumentImageService {
  /**
   * Find documents of a collection by file name (accent- and case-insensitive trigram similarity), best first.
   * @throws {DossierError} `not_found` (collection), `invalid_input` (empty `q`).
   * @example
   * const hits = await dossier.documents.search(access, collectionId, { q: 'annual report' });
   */
  search(access: Access, collectionId: string, raw: FilenameSearchInput): Promise<{ score: number; document: DocumentView }[]>;
}
