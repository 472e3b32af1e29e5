import { responses, schemas } from '@dossier/core';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

/** Reading, patching, deleting and retrying documents; tags; filename search. */
export function documentRoutes({ dossier }: RouteDeps): RouteDef[] {
  const d = dossier.documents;
  const one = (description: string) => ({ description, schema: responses.document });
  const many = (description: string) => ({ description, schema: responses.document.array() });
  const batchDelete = (method: 'delete' | 'post', path: string, operationId: string, summary: string) =>
    route({
      method,
      path,
      operationId,
      tag: 'documents',
      auth: 'key',
      summary,
      body: schemas.batchDeleteSchema,
      responses: { 204: 'Deleted', 404: 'A document is not in the collection' },
      handle: async (ctx, { caller, body }) => {
        await d.batchRemove(caller, ctx.params.id, body);
        noContent(ctx);
      },
    });
  return [
    route({
      method: 'get',
      path: '/v1/collections/:id/documents',
      operationId: 'listDocuments',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'List documents (paged, newest first)',
      query: schemas.listDocumentsSchema,
      responses: { 200: { description: 'A page of documents and the total', schema: responses.documentList }, 404: 'Not found' },
      handle: async (ctx, { caller, query, reply }) => reply(200, await d.list(caller, ctx.params.id, query)),
    }),
    batchDelete('delete', '/v1/collections/:id/documents/batch', 'deleteDocuments', 'Delete several documents'),
    batchDelete(
      'post',
      '/v1/collections/:id/documents/batch-delete',
      'deleteDocumentsByPost',
      'Delete several documents (for clients that cannot send a DELETE body)',
    ),
    route({
      method: 'post',
      path: '/v1/collections/:id/documents/retry-failed',
      operationId: 'retryFailedDocuments',
      tag: 'documents',
      auth: 'key',
      summary: 'Re-queue every document in error',
      responses: { 200: many('The re-queued documents'), 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await d.retryFailed(caller, ctx.params.id)),
    }),
    route({
      method: 'patch',
      path: '/v1/collections/:id/documents/bulk',
      operationId: 'bulkUpdateDocuments',
      tag: 'documents',
      auth: 'key',
      summary: 'Update tags and metadata of up to 500 documents',
      maxBodyBytes: 10 * 1024 * 1024,
      body: schemas.bulkPatchSchema,
      responses: { 200: many('The updated documents'), 404: 'Not found' },
      handle: async (ctx, { caller, body, reply }) => reply(200, await d.bulkPatch(caller, ctx.params.id, body)),
    }),
    route({
      method: 'patch',
      path: '/v1/collections/:id/documents/:docId',
      operationId: 'updateDocument',
      tag: 'documents',
      auth: 'key',
      summary: 'Replace tags; merge (or replace) metadata',
      body: schemas.documentPatchSchema,
      responses: { 200: one('The updated document'), 404: 'Not found' },
      handle: async (ctx, { caller, body, reply }) => reply(200, await d.patch(caller, ctx.params.id, ctx.params.docId, body)),
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/tags',
      operationId: 'listTags',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'Tags with document counts',
      responses: { 200: { description: 'Tags and whether any document has metadata', schema: responses.tagCounts }, 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await d.tags(caller, ctx.params.id)),
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/documents/search',
      operationId: 'searchFilenames',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'Fuzzy filename search (trigram similarity)',
      body: schemas.filenameSearchSchema,
      responses: { 200: { description: 'Matches, best first', schema: responses.filenameHits }, 404: 'Not found' },
      handle: async (ctx, { caller, body, reply }) => reply(200, await d.search(caller, ctx.params.id, body)),
    }),
    route({
      method: 'get',
      path: '/v1/documents/:id',
      operationId: 'getDocument',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'Get a document',
      responses: { 200: one('The document'), 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await d.get(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/documents/:id/wait',
      operationId: 'waitForDocument',
      tag: 'documents',
      auth: 'key-or-public',
      longRunning: true,
      summary: 'Long-poll until the document is ready or in error (5 minutes)',
      responses: { 200: one('The document, ready or in error'), 404: 'Not found', 408: 'Still processing after 5 minutes' },
      handle: async (ctx, { caller, reply }) => {
        const abort = new AbortController();
        ctx.req.on('close', () => abort.abort());
        ctx.req.socket.setTimeout(0);
        reply(200, await d.wait(caller, ctx.params.id, undefined, abort.signal));
      },
    }),
    route({
      method: 'get',
      path: '/v1/documents/:id/markdown',
      operationId: 'getDocumentMarkdown',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'The full Markdown (404 until processing completes)',
      responses: { 200: { description: 'The Markdown of the document', contentType: 'text/markdown' }, 404: 'Not found or not processed yet' },
      handle: async (ctx, { caller }) => {
        const md = await d.markdown(caller, ctx.params.id);
        ctx.type = 'text/markdown; charset=utf-8';
        ctx.status = 200;
        ctx.body = md;
      },
    }),
    route({
      method: 'get',
      path: '/v1/documents/:id/sections',
      operationId: 'listSections',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'Sections of a document in order',
      responses: {
        200: { description: 'The sections (pageStart and pageEnd when the document has pages)', schema: responses.section.array() },
        404: 'Not found',
      },
      handle: async (ctx, { caller, reply }) => reply(200, await d.sections(caller, ctx.params.id)),
    }),
    route({
      method: 'delete',
      path: '/v1/documents/:id',
      operationId: 'deleteDocument',
      tag: 'documents',
      auth: 'key',
      summary: 'Delete a document and its stored files',
      responses: { 204: 'Deleted', 404: 'Not found' },
      handle: async (ctx, { caller }) => {
        await d.remove(caller, ctx.params.id);
        noContent(ctx);
      },
    }),
    route({
      method: 'post',
      path: '/v1/documents/:id/retry',
      operationId: 'retryDocument',
      tag: 'documents',
      auth: 'key',
      summary: 'Retry a document in error',
      responses: { 200: one('The re-queued document'), 400: 'Not in error', 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await d.retry(caller, ctx.params.id)),
    }),
  ];
}
