import { createHash } from 'node:crypto';
import { type Access, collectionPrefix, originalKey, requireCollection, uploadStagingKey } from '../access.ts';
import { type DossierContext, publishDocumentStatus, setDocumentStatus } from '../context.ts';
import { DossierError, isDossierError, notFound } from '../domain/errors.ts';
import type { Collection, DocumentRecord, Metadata } from '../domain/types.ts';
import { enqueueIngest } from '../ingest/pipeline.ts';
import { batchConfirmSchema, confirmSchema, parseInput, type UploadUrlInput, uploadUrlSchema } from '../schemas.ts';
import { newId, nowIso } from '../util/ids.ts';
import { requireQuotaRoom } from '../usage/quotas.ts';
import { replaceDocumentContent, sameContent, stillProcessing } from './replace.ts';
import { normalizeSourcePath } from './source-path.ts';
import { UPLOAD_URL_TTL_MS, uploadTokens } from './upload-token.ts';
import { type DocumentView, documentView, normalizeTags, safeFilename } from './view.ts';
import type { UploadService } from '../api/documents.ts';

const sha256Of = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A library caller's file up to this size is hashed as it is uploaded (about a millisecond); a larger one by the pool. */
const HASH_ON_UPLOAD_MAX_BYTES = 512 * 1024;

/** A file uploaded directly: its bytes and what the caller says of it. */
export interface DirectUpload {
  filename: string;
  bytes: Uint8Array;
  contentType?: string;
  tags?: string[];
  metadata?: Metadata;
  /** The file's `sha256:<hex>`, when the caller hashed it as it arrived (the server does). */
  contentHash?: string;
  /**
   * Its path within the folder or bucket it mirrors (issue 43). A document of the collection with this path already:
   * the same content leaves it as it is, other content replaces it (same id, next version).
   */
  sourcePath?: string;
  /** What the source says of this file (an S3 ETag, a file's size and time), kept to skip it when unchanged. */
  sourceStamp?: string;
}

/**
 * A file a server-side source streams in (issue 43): the server reads it from the source itself, so it is trusted as
 * a direct upload is, but it never sits whole in memory: its bytes go from `body` into the blob store, hashed on the way.
 */
export interface StreamedFile {
  filename: string;
  sourcePath: string;
  /** What the source says of this file (an S3 ETag, a file's size and time), kept to skip it when unchanged. */
  sourceStamp: string;
  /** Its size as the source listed it: checked against the limit and the quota before a byte is read. */
  sizeBytes: number;
  /** Its bytes, read once. */
  body: AsyncIterable<Uint8Array>;
}

/** Direct multipart uploads are limited to 25 MB (spec: Limits). */
export const DIRECT_UPLOAD_MAX_BYTES = 25 * 1024 * 1024;

/**
 * What upload-url answers: where to PUT the file (a URL of the blob store itself, or a token for this server's signed
 * upload route), or the existing document on a content-hash hit (both null).
 */
export interface UploadUrlResult {
  documentId: string;
  uploadToken: string | null;
  /** A presigned URL of the blob store (S3), when the store takes client uploads and the size was declared. */
  storeUrl: string | null;
  document?: DocumentView;
}

function newDocument(c: Collection, filename: string, extra: Partial<DocumentRecord>): DocumentRecord {
  const now = nowIso();
  return {
    id: newId(),
    collectionId: c.id,
    filename: safeFilename(filename),
    contentType: null,
    status: 'pending',
    fileSizeBytes: null,
    sectionCount: null,
    chunkCount: null,
    contentHash: null,
    storageKey: null,
    markdownStorageKey: null,
    derivedBytes: null,
    errorMessage: null,
    tags: [],
    metadata: {},
    chunkSize: c.chunkSize,
    chunkOverlap: c.chunkOverlap,
    canonical: true,
    createdAt: now,
    updatedAt: now,
    ...extra,
  };
}

async function* hashing(source: AsyncIterable<Uint8Array>, hash: ReturnType<typeof createHash>) {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

const tooLargeToIngest = (size: number | null, maxBytes: number) =>
  new DossierError('payload_too_large', `The file${size === null ? '' : ` (${size} bytes)`} is larger than this server's upload limit of ${maxBytes} bytes`);
const usedUrl = () => new DossierError('conflict', 'This upload URL was already used; request a new one to upload again');
const sizeMismatch = (declared: number, got: number) =>
  new DossierError('invalid_input', `The upload URL was made for ${declared} bytes (fileSizeBytes) but the body has ${got}`);

/** Move a document whose file is stored into the pipeline. */
async function startPipeline(ctx: DossierContext, doc: DocumentRecord, patch: Partial<DocumentRecord> = {}): Promise<DocumentRecord> {
  const updated = await setDocumentStatus(ctx, doc, 'uploading', patch);
  await enqueueIngest(ctx, doc.id);
  return updated;
}

/** Uploads: presigned URL + confirm, direct upload, batch confirm. */
/** The upload service with the trusted streamed ingest that server-side sources use (issue 43; kept off `Dossier`). */
export interface UploadServiceWithInternals extends UploadService {
  /** Stream a source's file into the collection as a new document or the next version of its source path's document. */
  ingestStreamed(c: Collection, file: StreamedFile, maxBytes: number): Promise<DocumentRecord>;
}

export function uploadService(ctx: DossierContext): UploadServiceWithInternals {
  const tokens = uploadTokens(ctx.secrets.deriveKey('upload-url'));
  /** Documents whose presigned PUT is being received in this process (a concurrent second PUT is refused). */
  const receiving = new Set<string>();

  async function storeUpload(c: Collection, doc: DocumentRecord, body: AsyncIterable<Uint8Array>, limit: number, declared: number | null): Promise<void> {
    const key = originalKey(c, doc.id);
    const hash = createHash('sha256');
    let size: number;
    try {
      size = await ctx.blobs.putStream(key, hashing(body, hash), limit);
    } catch (err) {
      if (declared !== null && isDossierError(err, 'payload_too_large'))
        throw new DossierError('payload_too_large', `The body is larger than the ${declared} bytes declared at upload-url`);
      throw err;
    }
    if (declared !== null && size !== declared) {
      await ctx.blobs.delete(key);
      throw sizeMismatch(declared, size);
    }
    await ctx.store.updateDocument(doc.id, { fileSizeBytes: size, contentHash: `sha256:${hash.digest('hex')}`, storageKey: key });
  }

  /**
   * A file PUT straight into the store (presigned URL) is checked and moved to the original's key: its size must be
   * the declared one (S3 already refuses another length, as the length is signed; checked again for stores that do
   * not), else it is deleted and confirm answers 400. Its content hash is computed by the worker that converts it, so
   * the API node never reads the file.
   */
  async function adoptClientUpload(c: Collection, doc: DocumentRecord): Promise<DocumentRecord> {
    const staged = uploadStagingKey(c, doc.id);
    const stat = await ctx.blobs.stat(staged);
    if (!stat) return doc;
    if (doc.fileSizeBytes !== null && stat.size !== doc.fileSizeBytes) {
      await ctx.blobs.delete(staged);
      throw sizeMismatch(doc.fileSizeBytes, stat.size);
    }
    await ctx.blobs.move(staged, originalKey(c, doc.id));
    return ctx.store.updateDocument(doc.id, { fileSizeBytes: stat.size, storageKey: originalKey(c, doc.id) });
  }

  /** The document with the stamp its source now gives (unchanged when the stamp is the same or absent). */
  async function noteStamp(doc: DocumentRecord, stamp: string | null | undefined): Promise<DocumentRecord> {
    return stamp != null && stamp !== doc.sourceStamp ? ctx.store.updateDocument(doc.id, { sourceStamp: stamp }) : doc;
  }

  /**
   * Confirm a stored upload of new content for a synced document (issue 43: a presigned upload over 25 MB, or a large
   * file a source streamed in): the stored file is moved over that document's original, replacing its content in
   * place (same id, next version), and the placeholder goes. No byte passes through this process. `hashOf` is the
   * placeholder's content hash when the server computed it; null (a client's PUT straight into the store): the
   * worker hashes the file as it converts it.
   */
  async function confirmReplacement(c: Collection, placeholder: DocumentRecord, targetId: string, hashOf: string | null): Promise<DocumentRecord> {
    const target = await ctx.store.getDocument(targetId);
    if (!target || target.deletedAt || target.collectionId !== c.id) {
      throw new DossierError('conflict', `The document this upload replaces (${targetId}) was deleted meanwhile; request a new upload URL`);
    }
    const storedAt = originalKey(c, placeholder.id);
    const sizeBytes = placeholder.fileSizeBytes ?? (await ctx.blobs.stat(storedAt))?.size ?? 0;
    const file = {
      filename: placeholder.filename,
      storedAt,
      sizeBytes,
      contentHash: hashOf,
      contentType: placeholder.contentType ?? undefined,
      sourceStamp: placeholder.sourceStamp ?? undefined,
    };
    const replaced = sameContent(target, hashOf) ? await noteStamp(target, placeholder.sourceStamp) : await replaceDocumentContent(ctx, c, target, file);
    await ctx.blobs.deletePrefix(`${collectionPrefix(c)}${placeholder.id}/`);
    await ctx.store.deleteDocument(placeholder.id);
    return replaced;
  }

  async function confirmOne(c: Collection, pending: DocumentRecord, tags?: string[], metadata?: Metadata): Promise<DocumentRecord> {
    if (pending.status !== 'pending') return pending; // confirm is idempotent: a second call changes nothing
    const adopted = pending.storageKey === null && ctx.blobs.clientUploads !== undefined;
    const doc = adopted ? await adoptClientUpload(c, pending) : pending;
    const stat = await ctx.blobs.stat(originalKey(c, doc.id));
    if (!stat) throw new DossierError('invalid_input', `The file of document ${doc.id} has not been uploaded to its uploadUrl yet`);
    // A hash the client declared for a file it PUT straight into the store is its word only: the worker computes it.
    if (doc.replacesDocumentId) return confirmReplacement(c, doc, doc.replacesDocumentId, adopted ? null : doc.contentHash);
    const patch: Partial<DocumentRecord> = {};
    if (tags) patch.tags = normalizeTags(tags);
    if (metadata) patch.metadata = metadata;
    return startPipeline(ctx, doc, patch);
  }

  /** Insert a document; two uploads of one new source path at once: the second is told so (409), not a 500. */
  async function insertOnce(doc: DocumentRecord): Promise<void> {
    try {
      await ctx.store.insertDocument(doc);
    } catch (err) {
      if (doc.sourcePath && (await ctx.store.findDocumentBySourcePath(doc.collectionId, doc.sourcePath))) {
        if (doc.storageKey) await ctx.blobs.delete(doc.storageKey);
        throw new DossierError('conflict', `Another upload of sourcePath '${doc.sourcePath}' was stored at the same time; send it again`);
      }
      throw err;
    }
  }

  async function documentOf(c: Collection, docId: string): Promise<DocumentRecord> {
    const doc = await ctx.store.getDocument(docId);
    if (!doc || doc.collectionId !== c.id) throw notFound(`Document ${docId}`);
    return doc;
  }

  /**
   * A direct upload with a source path whose document exists: left as it is when the content is the same (its stamp
   * noted), else replaced in place. Null when no document has that path yet.
   */
  async function uploadOverSourcePath(
    c: Collection,
    file: DirectUpload,
    sourcePath: string,
    hash: string | null,
    tags?: string[],
    metadata?: Metadata,
  ): Promise<DocumentView | null> {
    const existing = await ctx.store.findDocumentBySourcePath(c.id, sourcePath);
    if (!existing) return null;
    if (sameContent(existing, hash)) return documentView(await noteStamp(existing, file.sourceStamp));
    const replacement = { ...file, contentHash: hash, tags, metadata };
    return documentView(await replaceDocumentContent(ctx, c, existing, replacement));
  }

  /** Store a direct upload's bytes and its document, and start the pipeline. */
  async function storeDirectUpload(access: Access, collectionId: string, file: DirectUpload): Promise<DocumentView> {
    const c = await requireCollection(ctx.store, access, collectionId, 'write');
    if (file.bytes.length > DIRECT_UPLOAD_MAX_BYTES) {
      throw new DossierError('payload_too_large', 'File exceeds the 25 MB limit of direct upload; use upload-url for larger files');
    }
    // Same rules as tags and metadata sent as JSON (upload-url, confirm, PATCH), so an uploaded document can be patched back.
    const { tags, metadata } = parseInput(confirmSchema, { tags: file.tags, metadata: file.metadata });
    const sourcePath = file.sourcePath === undefined ? null : normalizeSourcePath(file.sourcePath);
    const contentHash = file.contentHash ?? (file.bytes.length <= HASH_ON_UPLOAD_MAX_BYTES || sourcePath !== null ? sha256Of(file.bytes) : null);
    if (sourcePath !== null) {
      const handled = await uploadOverSourcePath(c, file, sourcePath, contentHash, tags, metadata as Metadata | undefined);
      if (handled) return handled;
    }
    await requireQuotaRoom(ctx, c, { documents: 1, bytes: file.bytes.length });
    // Inserted as `uploading` once its file is stored (one write instead of an insert and a status change).
    const doc = newDocument(c, file.filename, {
      status: 'uploading',
      contentType: file.contentType ?? null,
      fileSizeBytes: file.bytes.length,
      // The server hashes a body as it arrives; a library caller's bytes are hashed here when small (or when a source
      // path needs the hash to compare), else by the pool thread that converts them (25 MB is about 60 ms of the loop).
      contentHash,
      storageKey: originalKey(c, ''),
      tags: normalizeTags(tags ?? []),
      metadata: (metadata ?? {}) as Metadata,
      sourcePath,
      sourceStamp: file.sourceStamp ?? null,
    });
    doc.storageKey = originalKey(c, doc.id);
    // Not flushed to the disk before answering: the document's row is not either (SQLite synchronous=NORMAL), and
    // the flush was a third of a direct upload's time (4.8 ms to 3.8 ms, SciFact through the library). A file a
    // power cut truncated is found by its size when converted, and the document ends `error` (convert-step.ts).
    await ctx.blobs.put(doc.storageKey, file.bytes, { flush: false });
    await insertOnce(doc);
    await publishDocumentStatus(ctx, doc);
    await enqueueIngest(ctx, doc.id);
    return documentView(doc);
  }

  /**
   * What an upload-url with a source path (issue 43) is about: the document already holding this content (nothing to
   * send), or the fields of the pending document: the path itself for a new one, or the document it will replace.
   */
  async function sourcePathTarget(
    c: Collection,
    rawPath: string,
    hash: string | undefined,
  ): Promise<{ existing: DocumentRecord } | { fields: Partial<DocumentRecord> }> {
    if (!hash) throw new DossierError('invalid_input', 'An upload-url with a sourcePath needs the contentHash (to compare with the document of that path)');
    const sourcePath = normalizeSourcePath(rawPath);
    const existing = await ctx.store.findDocumentBySourcePath(c.id, sourcePath);
    if (!existing) return { fields: { sourcePath, contentHash: hash } };
    if (sameContent(existing, hash)) return { existing };
    if (existing.status !== 'ready' && existing.status !== 'error') {
      throw new DossierError(
        'conflict',
        `Document ${existing.id} is still processing its version ${existing.version ?? 1} (${existing.status}); send the new content once it is ready or in error`,
      );
    }
    return { fields: { replacesDocumentId: existing.id, contentHash: hash } };
  }

  /** A pending document of a streamed file: a new one with its source path, or a placeholder for the one it replaces. */
  async function streamedPending(c: Collection, file: StreamedFile, maxBytes: number): Promise<DocumentRecord> {
    if (file.sizeBytes > maxBytes) throw tooLargeToIngest(file.sizeBytes, maxBytes);
    const sourcePath = normalizeSourcePath(file.sourcePath);
    const existing = await ctx.store.findDocumentBySourcePath(c.id, sourcePath);
    if (existing && existing.status !== 'ready' && existing.status !== 'error') throw stillProcessing(existing);
    if (!existing) await requireQuotaRoom(ctx, c, { documents: 1, bytes: file.sizeBytes });
    const fields: Partial<DocumentRecord> = existing ? { replacesDocumentId: existing.id } : { sourcePath };
    const pending = newDocument(c, file.filename, { ...fields, sourceStamp: file.sourceStamp });
    await insertOnce(pending);
    return pending;
  }

  /** Forget a streamed file's pending document when its ingestion stopped before the pipeline took it. */
  async function discardPending(c: Collection, docId: string): Promise<void> {
    if ((await ctx.store.getDocument(docId))?.status !== 'pending') return;
    await ctx.blobs.deletePrefix(`${collectionPrefix(c)}${docId}/`);
    await ctx.store.deleteDocument(docId);
  }

  return {
    async createUploadUrl(access: Access, collectionId: string, raw: UploadUrlInput): Promise<UploadUrlResult> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const input = parseInput(uploadUrlSchema, raw);
      const hash = input.contentHash?.toLowerCase();
      const target = input.sourcePath !== undefined ? await sourcePathTarget(c, input.sourcePath, hash) : null;
      const existing = target ? ('existing' in target ? target.existing : null) : hash ? await ctx.store.findDocumentByHash(c.id, hash) : null;
      if (existing) return { documentId: existing.id, uploadToken: null, storeUrl: null, document: documentView(existing) };
      await requireQuotaRoom(ctx, c, { documents: 1, bytes: input.fileSizeBytes ?? 0 });
      const doc = newDocument(c, input.filename, {
        contentType: input.contentType ?? null,
        fileSizeBytes: input.fileSizeBytes ?? null,
        tags: normalizeTags(input.tags ?? []),
        metadata: (input.metadata ?? {}) as Metadata,
        ...(target && 'fields' in target ? target.fields : {}),
      });
      await insertOnce(doc);
      // Without a declared size a store URL could not bound the upload: this server's own route takes it then.
      const direct = ctx.blobs.clientUploads && doc.fileSizeBytes !== null ? ctx.blobs.clientUploads : null;
      if (direct)
        return {
          documentId: doc.id,
          uploadToken: null,
          storeUrl: await direct.presignPut(uploadStagingKey(c, doc.id), doc.fileSizeBytes!, UPLOAD_URL_TTL_MS / 1000),
        };
      return { documentId: doc.id, uploadToken: tokens.sign(doc.id), storeUrl: null };
    },

    /**
     * Store the body of a PUT to a presigned URL; the document stays pending until confirmed. The URL is single
     * use (a second PUT is a conflict) and bound to the size declared at upload-url: a body of another length is
     * refused (`contentLength` lets a wrong Content-Length fail before any byte is read).
     */
    async receiveUpload(token: string, body: AsyncIterable<Uint8Array>, maxBytes: number, contentLength: number | null = null): Promise<void> {
      const doc = await ctx.store.getDocument(tokens.verify(token));
      if (!doc) throw notFound('Document');
      if (doc.status !== 'pending') throw new DossierError('conflict', 'This document was already confirmed');
      if (doc.storageKey !== null || receiving.has(doc.id)) throw usedUrl();
      const declared = doc.fileSizeBytes;
      if (declared !== null && contentLength !== null && contentLength !== declared) throw sizeMismatch(declared, contentLength);
      const c = await ctx.store.getCollection(doc.collectionId);
      if (!c || c.deletedAt) throw notFound('Collection');
      receiving.add(doc.id);
      try {
        await storeUpload(c, doc, body, declared ?? maxBytes, declared);
      } finally {
        receiving.delete(doc.id);
      }
    },

    async confirm(access: Access, collectionId: string, docId: string, raw: unknown = {}): Promise<DocumentView> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const input = parseInput(confirmSchema, raw ?? {});
      const doc = await documentOf(c, docId);
      return documentView(await confirmOne(c, doc, input.tags, input.metadata as Metadata | undefined));
    },

    async batchConfirm(access: Access, collectionId: string, raw: unknown): Promise<DocumentView[]> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const { documentIds } = parseInput(batchConfirmSchema, raw);
      const docs = await Promise.all(documentIds.map((id) => documentOf(c, id)));
      const out: DocumentView[] = [];
      for (const doc of docs) out.push(documentView(await confirmOne(c, doc)));
      return out;
    },

    /**
     * Ingest a file a server-side source streams in (issue 43), as trusted as a direct upload but of any size up to
     * `maxBytes` (the server's upload limit): its bytes go into the store hashed on the way, never whole in memory,
     * then the document is made or replaced in place exactly as a confirmed presigned upload is (confirmOne): same
     * document for the same source path, next version, the previous content searchable until the new one is ready;
     * the same content only notes the new stamp. A file past the limit, a broken stream or a refusal leaves nothing.
     */
    async ingestStreamed(c: Collection, file: StreamedFile, maxBytes: number): Promise<DocumentRecord> {
      const pending = await streamedPending(c, file, maxBytes);
      try {
        await storeUpload(c, pending, file.body, maxBytes, null);
        return await confirmOne(c, await documentOf(c, pending.id));
      } catch (err) {
        await discardPending(c, pending.id);
        throw isDossierError(err, 'payload_too_large') ? tooLargeToIngest(null, maxBytes) : err;
      }
    },

    /**
     * Direct upload: store the bytes and start the pipeline (202 Document), when one of the process's upload slots is
     * free (ctx.uploadSlot: many uploads at once would hold the event loop for long turns).
     */
    upload(access: Access, collectionId: string, file: DirectUpload): Promise<DocumentView> {
      return ctx.uploadSlot(() => storeDirectUpload(access, collectionId, file));
    },
  };
}

export type { UploadService };
