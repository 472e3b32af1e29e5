import { DOCUMENT_STATUSES } from '@dossier/core/vocabulary';
import { z } from 'zod';
import { collectionId, DELETE, defineTool, documentId, done, objects, READ, type ToolContext, UPDATE, WRITE, withId } from './define.ts';

/** The server's long-poll bound (spec: svc_wait_for_document blocks up to 5 minutes). */
const WAIT_SECONDS = 300;
const PROGRESS_EVERY_MS = 5_000;

/** Long-poll the document, telling the caller every 5 s how long it has waited; cancelling the call ends the poll. */
async function waitForDocument(ctx: ToolContext, id: string): Promise<Record<string, unknown>> {
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    void ctx.progress(`document ${id} still processing after ${seconds} s`, { progress: seconds, total: WAIT_SECONDS });
  }, PROGRESS_EVERY_MS);
  try {
    return await ctx.api.json('GET', `/documents/${id}/wait`, { timeoutMs: null, signal: ctx.signal });
  } finally {
    clearInterval(timer);
  }
}

/** Documents: list, read, wait, tags, update, delete, retry. */
export const DOCUMENT_TOOLS = [
  defineTool({
    name: 'svc_list_documents',
    title: 'List documents',
    annotations: READ,
    scope: 'svc:read',
    description: 'Documents of a collection with their status (pending, processing, … ready, error), newest first, paged.',
    input: {
      collectionId,
      status: z.enum(DOCUMENT_STATUSES).optional().describe('Only documents in this status'),
      limit: z.number().int().min(1).max(500).optional().describe('Page size (1 to 500, default 100)'),
      offset: z.number().int().min(0).optional().describe('Documents to skip (default 0)'),
    },
    output: { documents: objects('Documents with status, tags and metadata'), total: z.number().int().describe('Documents matching, over all pages') },
    run: ({ collectionId: id, ...query }, ctx) => ctx.api.json('GET', `/collections/${id}/documents`, { query, signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_get_document',
    title: 'Document metadata',
    annotations: READ,
    scope: 'svc:read',
    description: 'Metadata of one document: filename, status (and error), tags, metadata, size, timestamps.',
    input: { documentId },
    output: withId('Document'),
    run: ({ documentId: id }, ctx) => ctx.api.json('GET', `/documents/${id}`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_wait_for_document',
    title: 'Wait for a document',
    annotations: READ,
    scope: 'svc:read',
    description:
      'Block until the document is ready or in error, up to 5 minutes; sends progress notifications every 5 s and stops when cancelled. Returns the document.',
    input: { documentId },
    output: withId('Document'),
    run: ({ documentId: id }, ctx) => waitForDocument(ctx, id),
  }),
  defineTool({
    name: 'svc_list_document_tags',
    title: 'Tags of a collection',
    annotations: READ,
    scope: 'svc:read',
    description: 'Every tag used in the collection with its document count: the values the tags/anyTags filters take.',
    input: { collectionId },
    output: { tags: z.array(z.looseObject({ name: z.string(), count: z.number() })).describe('Tags with document counts') },
    run: ({ collectionId: id }, ctx) => ctx.api.json('GET', `/collections/${id}/tags`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_update_document',
    title: 'Update tags and metadata',
    annotations: UPDATE,
    scope: 'svc:full',
    description: 'Replace the tags of a document and/or update its metadata: metadata is shallow-merged into the existing one unless replaceMetadata is true.',
    input: {
      collectionId,
      documentId,
      tags: z.array(z.string().min(1).max(200)).max(100).optional().describe('The new tags (replace the old ones)'),
      metadata: z.record(z.string(), z.unknown()).optional().describe('Key-value pairs to merge into the metadata'),
      replaceMetadata: z.boolean().optional().describe('Replace the whole metadata instead of merging (default false)'),
    },
    output: withId('Document'),
    run: ({ collectionId: id, documentId: docId, ...patch }, ctx) =>
      ctx.api.json('PATCH', `/collections/${id}/documents/${docId}`, { json: patch, signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_delete_document',
    title: 'Delete a document',
    annotations: DELETE,
    scope: 'svc:full',
    description: 'Permanently delete a document with its sections, chunks, claims and stored files.',
    input: { documentId },
    output: { deleted: z.boolean(), documentId: z.string() },
    run: ({ documentId: id }, ctx) => done(ctx, 'DELETE', `/documents/${id}`, { deleted: true, documentId: id }),
  }),
  defineTool({
    name: 'svc_batch_delete_documents',
    title: 'Delete several documents',
    annotations: DELETE,
    scope: 'svc:full',
    description: 'Permanently delete up to 500 documents of one collection; nothing is deleted if one of them is not in the collection.',
    input: { collectionId, documentIds: z.array(z.string().min(1)).min(1).max(500).describe('IDs of the documents to delete') },
    output: { deleted: z.number().int().describe('Documents deleted') },
    run: ({ collectionId: id, documentIds }, ctx) =>
      done(ctx, 'POST', `/collections/${id}/documents/batch-delete`, { deleted: documentIds.length }, { ids: documentIds }),
  }),
  defineTool({
    name: 'svc_retry_document',
    title: 'Retry a failed document',
    annotations: WRITE,
    scope: 'svc:full',
    description: 'Queue a document in error status for processing again.',
    input: { documentId },
    output: withId('Document'),
    run: ({ documentId: id }, ctx) => ctx.api.json('POST', `/documents/${id}/retry`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_retry_failed_documents',
    title: 'Retry every failed document',
    annotations: WRITE,
    scope: 'svc:full',
    description: 'Queue every document of the collection that is in error status for processing again.',
    input: { collectionId },
    output: { documents: objects('The documents queued again') },
    run: async ({ collectionId: id }, ctx) => ({
      documents: await ctx.api.json<unknown[]>('POST', `/collections/${id}/documents/retry-failed`, { signal: ctx.signal }),
    }),
  }),
];
