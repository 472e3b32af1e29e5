import { schemas } from '@dossier/core';
import { apiAccess, requireApiAccess } from '../http/auth.ts';
import { noContent, type RouteDef, type RouteDeps, send } from './define.ts';

/** Reading, patching, deleting and retrying documents; tags; filename search. */
export function documentRoutes({ dossier }: RouteDeps): RouteDef[] {
  const d = dossier.documents;
  const key = (ctx: Parameters<RouteDef['handle']>[0]) => requireApiAccess(ctx);
  const anyone = (ctx: Parameters<RouteDef['handle']>[0]) => apiAccess(ctx);
  const batchDelete: RouteDef['handle'] = async (ctx, { body }) => {
    await d.batchRemove(await key(ctx), ctx.params.id, body);
    noContent(ctx);
  };
  return [
    { method: 'get', path: '/v1/collections/:id/documents', tag: 'documents', auth: 'key-or-public', summary: 'List documents (paged, newest first)',
      query: schemas.listDocumentsSchema, responses: { 200: '{documents, total}' },
      handle: async (ctx, { query }) => send(ctx, 200, await d.list(await anyone(ctx), ctx.params.id, query as schemas.ListDocumentsInput)) },
    { method: 'delete', path: '/v1/collections/:id/documents/batch', tag: 'documents', auth: 'key', summary: 'Delete several documents',
      body: schemas.batchDeleteSchema, responses: { 204: 'Deleted', 404: 'A document is not in the collection' }, handle: batchDelete },
    { method: 'post', path: '/v1/collections/:id/documents/batch-delete', tag: 'documents', auth: 'key', summary: 'Delete several documents (for clients that cannot send a DELETE body)',
      body: schemas.batchDeleteSchema, responses: { 204: 'Deleted', 404: 'A document is not in the collection' }, handle: batchDelete },
    { method: 'post', path: '/v1/collections/:id/documents/retry-failed', tag: 'documents', auth: 'key', summary: 'Re-queue every document in error',
      responses: { 200: 'array of Document' },
      handle: async (ctx) => send(ctx, 200, await d.retryFailed(await key(ctx), ctx.params.id)) },
    { method: 'patch', path: '/v1/collections/:id/documents/bulk', tag: 'documents', auth: 'key', summary: 'Update tags and metadata of up to 500 documents', maxBodyBytes: 10 * 1024 * 1024,
      body: schemas.bulkPatchSchema, responses: { 200: 'array of Document', 400: 'Invalid input' },
      handle: async (ctx, { body }) => send(ctx, 200, await d.bulkPatch(await key(ctx), ctx.params.id, body)) },
    { method: 'patch', path: '/v1/collections/:id/documents/:docId', tag: 'documents', auth: 'key', summary: 'Replace tags; merge (or replace) metadata',
      body: schemas.documentPatchSchema, responses: { 200: 'Document', 404: 'Not found' },
      handle: async (ctx, { body }) => send(ctx, 200, await d.patch(await key(ctx), ctx.params.id, ctx.params.docId, body as schemas.DocumentPatchInput)) },
    { method: 'get', path: '/v1/collections/:id/tags', tag: 'documents', auth: 'key-or-public', summary: 'Tags with document counts',
      responses: { 200: '{tags: [{name, count}], hasMetadata}' },
      handle: async (ctx) => send(ctx, 200, await d.tags(await anyone(ctx), ctx.params.id)) },
    { method: 'post', path: '/v1/collections/:id/documents/search', tag: 'documents', auth: 'key-or-public', summary: 'Fuzzy filename search (trigram similarity)',
      body: schemas.filenameSearchSchema, responses: { 200: 'array of {score, document}' },
      handle: async (ctx, { body }) => send(ctx, 200, await d.search(await anyone(ctx), ctx.params.id, body as schemas.FilenameSearchInput)) },
    { method: 'get', path: '/v1/documents/:id', tag: 'documents', auth: 'key-or-public', summary: 'Get a document', responses: { 200: 'Document', 404: 'Not found' },
      handle: async (ctx) => send(ctx, 200, await d.get(await anyone(ctx), ctx.params.id)) },
    { method: 'get', path: '/v1/documents/:id/wait', tag: 'documents', auth: 'key-or-public', longRunning: true, summary: 'Long-poll until the document is ready or in error (5 minutes)',
      responses: { 200: 'Document', 408: 'Still processing after 5 minutes' },
      handle: async (ctx) => {
        const abort = new AbortController();
        ctx.req.on('close', () => abort.abort());
        ctx.req.socket.setTimeout(0);
        send(ctx, 200, await d.wait(await anyone(ctx), ctx.params.id, undefined, abort.signal));
      } },
    { method: 'get', path: '/v1/documents/:id/markdown', tag: 'documents', auth: 'key-or-public', summary: 'The full Markdown (404 until processing completes)',
      responses: { 200: 'text/markdown', 404: 'Not found or not processed yet' },
      handle: async (ctx) => {
        const md = await d.markdown(await anyone(ctx), ctx.params.id);
        ctx.type = 'text/markdown; charset=utf-8';
        ctx.status = 200;
        ctx.body = md;
      } },
    { method: 'get', path: '/v1/documents/:id/sections', tag: 'documents', auth: 'key-or-public', summary: 'Sections of a document in order',
      responses: { 200: 'array of Section' },
      handle: async (ctx) => send(ctx, 200, await d.sections(await anyone(ctx), ctx.params.id)) },
    { method: 'delete', path: '/v1/documents/:id', tag: 'documents', auth: 'key', summary: 'Delete a document and its stored files',
      responses: { 204: 'Deleted', 404: 'Not found' },
      handle: async (ctx) => {
        await d.remove(await key(ctx), ctx.params.id);
        noContent(ctx);
      } },
    { method: 'post', path: '/v1/documents/:id/retry', tag: 'documents', auth: 'key', summary: 'Retry a document in error',
      responses: { 200: 'Document', 400: 'Not in error' },
      handle: async (ctx) => send(ctx, 200, await d.retry(await key(ctx), ctx.params.id)) },
  ];
}
