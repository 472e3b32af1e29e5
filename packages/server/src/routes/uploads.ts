import { DossierError, responses, schemas } from '@dossier/core';
import { type MultipartForm, readMultipart } from '../http/multipart.ts';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** A batch upload takes at most 100 files and 100 MB per request. */
const BATCH_LIMITS = { maxFiles: 100, maxTotalBytes: 100 * 1024 * 1024 };
const SINGLE_LIMITS = { maxFiles: 1, maxTotalBytes: 26 * 1024 * 1024 };

/** The files' source paths (issue 43), one per file in order, or none; any other count is refused. */
function sourcePathsOf(form: MultipartForm): (string | undefined)[] {
  if (form.sourcePaths === undefined) return [];
  if (form.sourcePaths.length !== form.files.length) {
    throw new DossierError('invalid_input', `sourcePaths has ${form.sourcePaths.length} entries for ${form.files.length} files; send one per file, in order`);
  }
  return form.sourcePaths;
}

/** Upload paths: presigned URL, the PUT it points to, confirm, direct and batch multipart, batch confirm. */
export function uploadRoutes({ dossier, config, publicUrl }: RouteDeps): RouteDef[] {
  const d = dossier.documents;
  return [
    route({
      method: 'post',
      path: '/v1/collections/:id/documents/upload-url',
      operationId: 'createUploadUrl',
      idempotent: true,
      tag: 'documents',
      auth: 'key',
      summary: 'Create a document and a presigned upload URL (valid 15 minutes); returns the existing document on a content-hash hit',
      body: schemas.uploadUrlSchema,
      responses: {
        201: { description: 'The new document and the URL to PUT its file to', schema: responses.uploadUrl },
        200: { description: 'A document with the same content hash exists: it is returned and uploadUrl is null', schema: responses.uploadUrl },
        402: 'Document or storage quota reached',
        404: 'Not found',
        413: 'fileSizeBytes over the server limit',
      },
      handle: async (ctx, { caller, body, reply }) => {
        const declared = body.fileSizeBytes;
        if (declared !== undefined && declared > config.maxUploadBytes)
          throw new DossierError('payload_too_large', `fileSizeBytes exceeds the limit of ${config.maxUploadBytes} bytes`);
        const r = await d.createUploadUrl(caller, ctx.params.id, body);
        if (r.document) return reply(200, { documentId: r.documentId, uploadUrl: null, document: r.document });
        // The blob store's own presigned URL (S3) when it takes client uploads, else this server's signed route.
        reply(201, { documentId: r.documentId, uploadUrl: r.storeUrl ?? `${publicUrl()}/v1/uploads/${r.uploadToken}` });
      },
    }),
    route({
      method: 'put',
      path: '/v1/uploads/:token',
      operationId: 'putUpload',
      tag: 'documents',
      auth: 'upload-url',
      bodyType: 'application/octet-stream',
      longRunning: true,
      summary: 'Receive the file of a presigned upload (the URL itself authorises the request). Single use, and bound to the declared fileSizeBytes',
      responses: {
        200: { description: 'Stored; call confirm next', schema: responses.uploadReceived },
        400: 'Body length differs from the declared fileSizeBytes',
        401: 'Invalid URL',
        403: 'Expired URL',
        409: 'URL already used',
        413: 'Too large',
      },
      handle: async (ctx, { reply }) => {
        const header = ctx.get('content-length');
        const length = header === '' ? null : Number(header);
        if (length !== null && length > config.maxUploadBytes) throw new DossierError('payload_too_large', `File exceeds ${config.maxUploadBytes} bytes`);
        await d.receiveUpload(ctx.params.token, ctx.req, config.maxUploadBytes, length);
        reply(200, { ok: true });
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/documents/:docId/confirm',
      operationId: 'confirmUpload',
      tag: 'documents',
      auth: 'key',
      summary: 'Confirm a presigned upload; the document moves to uploading',
      body: schemas.confirmSchema,
      responses: { 200: { description: 'The document', schema: responses.document }, 400: 'File not uploaded yet', 404: 'Not found' },
      handle: async (ctx, { caller, body, reply }) => reply(200, await d.confirm(caller, ctx.params.id, ctx.params.docId, body)),
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/documents/batch-confirm',
      operationId: 'confirmUploads',
      tag: 'documents',
      auth: 'key',
      summary: 'Confirm 1 to 500 presigned uploads',
      body: schemas.batchConfirmSchema,
      responses: { 200: { description: 'The documents', schema: responses.document.array() }, 404: 'Not found' },
      handle: async (ctx, { caller, body, reply }) => reply(200, await d.batchConfirm(caller, ctx.params.id, body)),
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/documents',
      operationId: 'uploadDocument',
      idempotent: true,
      tag: 'documents',
      auth: 'key',
      bodyType: 'multipart/form-data',
      uploads: 'one',
      longRunning: true,
      summary:
        'Upload one file (multipart field `file`, optional `tags` JSON array, `metadata` JSON object and `sourcePath`: its path in a synced source, which replaces that document when the content differs), up to 25 MB',
      responses: {
        202: { description: 'The document, processing', schema: responses.document },
        402: 'Document or storage quota reached',
        404: 'Not found',
        413: 'File exceeds 25 MB',
      },
      handle: async (ctx, { caller: access, reply }) => {
        const form = await readMultipart(ctx, SINGLE_LIMITS);
        const file = form.files[0];
        if (!file) throw new DossierError('invalid_input', "Missing multipart field 'file'");
        reply(202, await d.upload(access, ctx.params.id, { ...file, tags: form.tags, metadata: form.metadata, sourcePath: sourcePathsOf(form)[0] }));
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/documents/batch',
      operationId: 'uploadDocuments',
      idempotent: true,
      tag: 'documents',
      auth: 'key',
      bodyType: 'multipart/form-data',
      uploads: 'many',
      longRunning: true,
      summary:
        'Upload several files (repeated field `file`; shared `tags` and `metadata`; `sourcePaths` JSON array, one per file); 100 files and 100 MB per request',
      responses: {
        202: { description: 'The documents, processing', schema: responses.documentBatch },
        402: 'Document or storage quota reached',
        404: 'Not found',
        413: 'A file exceeds 25 MB',
      },
      handle: async (ctx, { caller: access, reply }) => {
        const form = await readMultipart(ctx, BATCH_LIMITS);
        if (form.files.length === 0) throw new DossierError('invalid_input', "Missing multipart field 'file'");
        const paths = sourcePathsOf(form);
        const documents = [];
        for (const [i, file] of form.files.entries())
          documents.push(await d.upload(access, ctx.params.id, { ...file, tags: form.tags, metadata: form.metadata, sourcePath: paths[i] }));
        reply(202, { documents });
      },
    }),
  ];
}
