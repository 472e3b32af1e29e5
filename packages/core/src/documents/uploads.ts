import { createHash } from 'node:crypto';
import { type Access, originalKey, requireCollection } from '../access.ts';
import { type DossierContext, setDocumentStatus } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Collection, DocumentRecord, Metadata } from '../domain/types.ts';
import { enqueueIngest } from '../ingest/pipeline.ts';
import { batchConfirmSchema, confirmSchema, parseInput, type UploadUrlInput, uploadUrlSchema } from '../schemas.ts';
import { newId, nowIso } from '../util/ids.ts';
import { uploadTokens } from './upload-token.ts';
import { type DocumentView, documentView, normalizeTags, safeFilename } from './view.ts';

/** Direct multipart uploads are limited to 25 MB (spec: Limits). */
export const DIRECT_UPLOAD_MAX_BYTES = 25 * 1024 * 1024;

/** What upload-url answers: a token for the signed PUT, or the existing document on a content-hash hit. */
export interface UploadUrlResult {
  documentId: string;
  uploadToken: string | null;
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

/** Move a document whose file is stored into the pipeline. */
async function startPipeline(ctx: DossierContext, doc: DocumentRecord, patch: Partial<DocumentRecord> = {}): Promise<DocumentRecord> {
  const updated = await setDocumentStatus(ctx, doc, 'uploading', patch);
  await enqueueIngest(ctx, doc.id);
  return updated;
}

/** Uploads: presigned URL + confirm, direct upload, batch confirm. */
export function uploadService(ctx: DossierContext) {
  const tokens = uploadTokens(ctx.secrets.deriveKey('upload-url'));

  async function confirmOne(c: Collection, doc: DocumentRecord, tags?: string[], metadata?: Metadata): Promise<DocumentRecord> {
    if (doc.status !== 'pending') return doc; // confirm is idempotent: a second call changes nothing
    const stat = await ctx.blobs.stat(originalKey(c, doc.id));
    if (!stat) throw new DossierError('invalid_input', `The file of document ${doc.id} has not been uploaded to its uploadUrl yet`);
    const patch: Partial<DocumentRecord> = {};
    if (tags) patch.tags = normalizeTags(tags);
    if (metadata) patch.metadata = metadata;
    return startPipeline(ctx, doc, patch);
  }

  async function documentOf(c: Collection, docId: string): Promise<DocumentRecord> {
    const doc = await ctx.store.getDocument(docId);
    if (!doc || doc.collectionId !== c.id) throw notFound(`Document ${docId}`);
    return doc;
  }

  return {
    async createUploadUrl(access: Access, collectionId: string, raw: UploadUrlInput): Promise<UploadUrlResult> {
      const c = await requireCollection(ctx, access, collectionId, 'write');
      const input = parseInput(uploadUrlSchema, raw);
      const hash = input.contentHash?.toLowerCase();
      const existing = hash ? await ctx.store.findDocumentByHash(c.id, hash) : null;
      if (existing) return { documentId: existing.id, uploadToken: null, document: documentView(existing) };
      const doc = newDocument(c, input.filename, {
        contentType: input.contentType ?? null,
        fileSizeBytes: input.fileSizeBytes ?? null,
        tags: normalizeTags(input.tags ?? []),
        metadata: (input.metadata ?? {}) as Metadata,
      });
      await ctx.store.insertDocument(doc);
      return { documentId: doc.id, uploadToken: tokens.sign(doc.id) };
    },

    /** Store the body of a PUT to a presigned URL; the document stays pending until confirmed. */
    async receiveUpload(token: string, body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<void> {
      const doc = await ctx.store.getDocument(tokens.verify(token));
      if (!doc) throw notFound('Document');
      if (doc.status !== 'pending') throw new DossierError('conflict', 'This document was already confirmed');
      const c = await ctx.store.getCollection(doc.collectionId);
      if (!c || c.deletedAt) throw notFound('Collection');
      const hash = createHash('sha256');
      const size = await ctx.blobs.putStream(originalKey(c, doc.id), hashing(body, hash), maxBytes);
      await ctx.store.updateDocument(doc.id, {
        fileSizeBytes: size,
        contentHash: `sha256:${hash.digest('hex')}`,
        storageKey: originalKey(c, doc.id),
      });
    },

    async confirm(access: Access, collectionId: string, docId: string, raw: unknown = {}): Promise<DocumentView> {
      const c = await requireCollection(ctx, access, collectionId, 'write');
      const input = parseInput(confirmSchema, raw ?? {});
      const doc = await documentOf(c, docId);
      return documentView(await confirmOne(c, doc, input.tags, input.metadata as Metadata | undefined));
    },

    async batchConfirm(access: Access, collectionId: string, raw: unknown): Promise<DocumentView[]> {
      const c = await requireCollection(ctx, access, collectionId, 'write');
      const { documentIds } = parseInput(batchConfirmSchema, raw);
      const docs = await Promise.all(documentIds.map((id) => documentOf(c, id)));
      const out: DocumentView[] = [];
      for (const doc of docs) out.push(documentView(await confirmOne(c, doc)));
      return out;
    },

    /** Direct upload: store the bytes and start the pipeline (202 Document). */
    async upload(
      access: Access,
      collectionId: string,
      file: { filename: string; bytes: Uint8Array; contentType?: string; tags?: string[]; metadata?: Metadata },
    ): Promise<DocumentView> {
      const c = await requireCollection(ctx, access, collectionId, 'write');
      if (file.bytes.length > DIRECT_UPLOAD_MAX_BYTES) {
        throw new DossierError('payload_too_large', 'File exceeds the 25 MB limit of direct upload; use upload-url for larger files');
      }
      // Same rules as tags and metadata sent as JSON (upload-url, confirm, PATCH), so an uploaded document can be patched back.
      const { tags, metadata } = parseInput(confirmSchema, { tags: file.tags, metadata: file.metadata });
      const doc = newDocument(c, file.filename, {
        contentType: file.contentType ?? null,
        fileSizeBytes: file.bytes.length,
        contentHash: `sha256:${createHash('sha256').update(file.bytes).digest('hex')}`,
        storageKey: originalKey(c, ''),
        tags: normalizeTags(tags ?? []),
        metadata: (metadata ?? {}) as Metadata,
      });
      doc.storageKey = originalKey(c, doc.id);
      await ctx.blobs.put(doc.storageKey, file.bytes);
      await ctx.store.insertDocument(doc);
      return documentView(await startPipeline(ctx, doc));
    },
  };
}

export type UploadService = ReturnType<typeof uploadService>;
