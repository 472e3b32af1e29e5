import { DossierError, schemas } from '@dossier/core';
import { requireApiAccess } from '../http/auth.ts';
import { readMultipart } from '../http/multipart.ts';
import { type RouteDef, type RouteDeps, send } from './define.ts';

/** A batch upload takes at most 100 files and 100 MB per request. */
const BATCH_LIMITS = { maxFiles: 100, maxTotalBytes: 100 * 1024 * 1024 };
const SINGLE_LIMITS = { maxFiles: 1, maxTotalBytes: 26 * 1024 * 1024 };

/** Upload paths: presigned URL, the PUT it points to, confirm, direct and batch multipart, batch confirm. */
export function uploadRoutes({ dossier, config, publicUrl }: RouteDeps): RouteDef[] {
  const d = dossier.documents;
  return [
    {
      method: 'post', path: '/v1/collections/:id/documents/upload-url', idempotent: true, tag: 'documents', auth: 'key',
      summary: 'Create a document and a presigned upload URL (valid 15 minutes); returns the existing document on a content-hash hit',
      body: schemas.uploadUrlSchema,
      responses: { 201: 'UploadUrlResponse', 200: 'UploadUrlResponse with the existing document', 400: 'Invalid input', 402: 'Document or storage quota reached', 413: 'fileSizeBytes over the server limit' },
      handle: async (ctx, { body }) => {
        const declared = (body as schemas.UploadUrlInput).fileSizeBytes;
        if (declared !== undefined && declared > config.maxUploadBytes) throw new DossierError('payload_too_large', `fileSizeBytes exceeds the limit of ${config.maxUploadBytes} bytes`);
        const r = await d.createUploadUrl(requireApiAccess(ctx), ctx.params.id, body as schemas.UploadUrlInput);
        if (r.uploadToken === null) return send(ctx, 200, { documentId: r.documentId, uploadUrl: null, document: r.document });
        send(ctx, 201, { documentId: r.documentId, uploadUrl: `${publicUrl()}/v1/uploads/${r.uploadToken}` });
      },
    },
    {
      method: 'put', path: '/v1/uploads/:token', tag: 'documents', auth: 'upload-url', bodyType: 'application/octet-stream', longRunning: true,
      summary: 'Receive the file of a presigned upload (the URL itself authorises the request). Single use, and bound to the declared fileSizeBytes',
      responses: {
        200: 'Stored; call confirm next', 400: 'Body length differs from the declared fileSizeBytes', 401: 'Invalid URL', 403: 'Expired URL',
        409: 'URL already used', 413: 'Too large',
      },
      handle: async (ctx) => {
        const header = ctx.get('content-length');
        const length = header === '' ? null : Number(header);
        if (length !== null && length > config.maxUploadBytes) throw new DossierError('payload_too_large', `File exceeds ${config.maxUploadBytes} bytes`);
        await d.receiveUpload(ctx.params.token, ctx.req, config.maxUploadBytes, length);
        send(ctx, 200, { ok: true });
      },
    },
    {
      method: 'post', path: '/v1/collections/:id/documents/:docId/confirm', tag: 'documents', auth: 'key',
      summary: 'Confirm a presigned upload; the document moves to uploading', body: schemas.confirmSchema,
      responses: { 200: 'Document', 400: 'File not uploaded yet', 404: 'Not found' },
      handle: async (ctx, { body }) => send(ctx, 200, await d.confirm(requireApiAccess(ctx), ctx.params.id, ctx.params.docId, body)),
    },
    {
      method: 'post', path: '/v1/collections/:id/documents/batch-confirm', tag: 'documents', auth: 'key',
      summary: 'Confirm 1 to 500 presigned uploads', body: schemas.batchConfirmSchema, responses: { 200: 'array of Document', 400: 'Invalid input' },
      handle: async (ctx, { body }) => send(ctx, 200, await d.batchConfirm(requireApiAccess(ctx), ctx.params.id, body)),
    },
    {
      method: 'post', path: '/v1/collections/:id/documents', idempotent: true, tag: 'documents', auth: 'key', bodyType: 'multipart/form-data', longRunning: true,
      summary: 'Upload one file (multipart field `file`, optional `tags` JSON array and `metadata` JSON object), up to 25 MB',
      responses: { 202: 'Document', 400: 'Invalid input', 413: 'File exceeds 25 MB' },
      handle: async (ctx) => {
        const access = requireApiAccess(ctx);
        const form = await readMultipart(ctx, SINGLE_LIMITS);
        const file = form.files[0];
        if (!file) throw new DossierError('invalid_input', "Missing multipart field 'file'");
        send(ctx, 202, await d.upload(access, ctx.params.id, { ...file, tags: form.tags, metadata: form.metadata }));
      },
    },
    {
      method: 'post', path: '/v1/collections/:id/documents/batch', idempotent: true, tag: 'documents', auth: 'key', bodyType: 'multipart/form-data', longRunning: true,
      summary: 'Upload several files (repeated field `file`; shared `tags` and `metadata`); 100 files and 100 MB per request',
      responses: { 202: '{documents: Document[]}', 400: 'Invalid input', 413: 'A file exceeds 25 MB' },
      handle: async (ctx) => {
        const access = requireApiAccess(ctx);
        const form = await readMultipart(ctx, BATCH_LIMITS);
        if (form.files.length === 0) throw new DossierError('invalid_input', "Missing multipart field 'file'");
        const documents = [];
        for (const file of form.files) documents.push(await d.upload(access, ctx.params.id, { ...file, tags: form.tags, metadata: form.metadata }));
        send(ctx, 202, { documents });
      },
    },
  ];
}
