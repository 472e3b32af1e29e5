import { VISIBILITIES } from '@dossier/core/vocabulary';
import { z } from 'zod';
import { collectionId, DELETE, defineTool, done, objects, READ, ToolError, UPDATE, WRITE, withId } from './define.ts';

const visibility = z.enum(VISIBILITIES).describe('public allows unauthenticated reads; private (default) requires an API key');

/** Collections: list, create, stats, update, describe, delete. */
export const COLLECTION_TOOLS = [
  defineTool({
    name: 'svc_list_collections',
    title: 'List collections',
    annotations: READ,
    scope: 'svc:read',
    description: 'The collections of the project (ID, name, description, visibility, settings). Every other tool works on one collection ID.',
    input: {},
    output: { collections: objects('Collections of the project') },
    run: async (_args, ctx) => ({ collections: await ctx.api.json<unknown[]>('GET', '/collections', { signal: ctx.signal }) }),
  }),
  defineTool({
    name: 'svc_create_collection',
    title: 'Create a collection',
    annotations: WRITE,
    scope: 'svc:full',
    description: 'Create an empty collection. Chunking and the embedding model are fixed when documents are indexed; the defaults suit most text.',
    input: {
      name: z.string().min(1).max(200).describe('Collection name'),
      description: z.string().max(2000).optional().describe('What the collection holds (helps research and other assistants)'),
      visibility: visibility.optional(),
      chunkSize: z.number().int().min(64).max(4096).optional().describe('Chunk size in tokens (64 to 4096)'),
      chunkOverlap: z.number().int().min(0).max(512).optional().describe('Overlap between chunks in tokens (0 to 512)'),
      embeddingModel: z.string().min(1).max(200).optional().describe('Embedding model ID (fixed for the life of the collection)'),
      projectId: z.string().min(1).optional().describe('Project identifier (default: the one this server was started with)'),
    },
    output: withId('Collection'),
    run: ({ projectId, ...fields }, ctx) => {
      const project = projectId ?? ctx.projectId;
      if (!project) throw new ToolError('no project to create the collection in: pass projectId, or start `dossier mcp` with SERVICE_PROJECT_ID set');
      return ctx.api.json('POST', '/collections', { json: { projectId: project, ...fields }, signal: ctx.signal });
    },
  }),
  defineTool({
    name: 'svc_get_collection_stats',
    title: 'Collection statistics',
    annotations: READ,
    scope: 'svc:read',
    description: 'Statistics of a collection: documents by status, sections, chunks, storage and more.',
    input: { collectionId },
    output: {},
    run: ({ collectionId: id }, ctx) => ctx.api.json('GET', `/collections/${id}/stats`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_update_collection',
    title: 'Update a collection',
    annotations: UPDATE,
    scope: 'svc:full',
    description: 'Change the name, description, research instructions, visibility or feature flags of a collection. Only the fields given change.',
    input: {
      collectionId,
      name: z.string().min(1).max(200).optional().describe('New collection name'),
      description: z.string().max(2000).nullable().optional().describe('null clears it'),
      instructions: z.string().max(4000).nullable().optional().describe('Standing instructions for research answers (null clears them)'),
      visibility: visibility.optional(),
      enableSummarization: z.boolean().optional().describe('Summarize sections with a model'),
      enableCaptioning: z.boolean().optional().describe('Caption images and tables with a model'),
      enableReranking: z.boolean().optional().describe('Rerank search results'),
      enableDeduplication: z.boolean().optional().describe('Detect near-duplicate documents'),
    },
    output: withId('Collection'),
    run: ({ collectionId: id, ...fields }, ctx) => ctx.api.json('PATCH', `/collections/${id}`, { json: fields, signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_describe_collection',
    title: 'Describe a collection',
    annotations: UPDATE,
    scope: 'svc:full',
    description: 'Generate a description of a collection with the fast model from its filenames and headings.',
    input: { collectionId },
    output: { collectionId: z.string(), description: z.string() },
    run: async ({ collectionId: id }, ctx) => {
      const collection = await ctx.api.json<{ id: string; description: string }>('POST', `/collections/${id}/describe`, {
        signal: ctx.signal,
        timeoutMs: null,
      });
      return { collectionId: collection.id, description: collection.description };
    },
  }),
  defineTool({
    name: 'svc_delete_collection',
    title: 'Delete a collection',
    annotations: DELETE,
    scope: 'svc:full',
    description: 'Permanently delete a collection with all its documents, sections, chunks and claims. Cannot be undone.',
    input: { collectionId },
    output: { deleted: z.boolean(), collectionId: z.string() },
    run: ({ collectionId: id }, ctx) => done(ctx, 'DELETE', `/collections/${id}`, { deleted: true, collectionId: id }),
  }),
];
