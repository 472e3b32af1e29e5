import { z } from 'zod';
import type { AgentTool } from '../tool-loop/loop.ts';
import type { DossierContext } from '../context.ts';
import type { AgentToolName, AgentToolset } from '../domain/agents.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Collection } from '../domain/types.ts';
import { documentMatches } from '../research/document-filter.ts';
import { sectionReadTool } from '../research/section-tool.ts';
import type { SourceRegistry } from '../research/sources.ts';
import { type ResearchToolContext, recoverable } from '../research/tool-context.ts';
import { researchTools } from '../research/tools.ts';
import { wrapUntrusted } from '../research/untrusted.ts';
import { parseInput } from '../schemas.ts';
import type { SearchService } from '../search/query.ts';
import { isUuid } from '../util/ids.ts';

/**
 * The five tools of hosted agents (spec: Agent toolset). Each call names its collection and is checked against the
 * allow-list as it is now (re-read on every call, so an update applies mid-run) and, when the run is scoped to a
 * document, against that document. Search, scan and section reads reuse the research tools; every result reaches
 * the model fenced as untrusted.
 */
export interface AgentToolScope {
  ctx: DossierContext;
  search: SearchService;
  projectId: string;
  /** The collections the agent may read now (null: every collection of the project). Called on every tool call. */
  allowedCollections(): Promise<string[] | null>;
  /** The one document every call is scoped to, or null. */
  documentId: string | null;
  sources: SourceRegistry;
  /** Which collection each registered source came from (chunk id → collection id). */
  collectionOfChunk: Map<string, string>;
}

const collectionIdField = z.string().trim().min(1).max(100);

/** The collection when it belongs to the run's project and the agent may read it now, else null. */
async function readableCollection(scope: AgentToolScope, collectionId: string): Promise<{ collection: Collection | null; allowed: string[] | null }> {
  const allowed = await scope.allowedCollections();
  const collection = isUuid(collectionId) ? await scope.ctx.store.getCollection(collectionId) : null;
  const inProject = collection && !collection.deletedAt && collection.projectId === scope.projectId;
  return { collection: inProject && (allowed === null || allowed.includes(collection.id)) ? collection : null, allowed };
}

/**
 * The collection when the agent may read it now; the model gets an error it can act on otherwise. `reachedThrough`
 * names the document or section the call named when the collection id came from the store, not from the model:
 * then a collection out of reach is that item "not found", as everywhere else, and its id (another tenant's,
 * perhaps) is never told.
 */
async function collectionInScope(scope: AgentToolScope, collectionId: string, reachedThrough?: string): Promise<Collection> {
  const { collection, allowed } = await readableCollection(scope, collectionId);
  if (!collection && reachedThrough) throw notFound(reachedThrough);
  if (!collection) {
    const listed = allowed === null ? 'any collection of the project' : allowed.join(', ');
    throw new DossierError('not_found', `Collection ${collectionId} is not one this agent may read (allowed: ${listed})`);
  }
  if (scope.documentId) {
    const doc = await scope.ctx.store.getDocument(scope.documentId);
    if (!doc || doc.collectionId !== collection.id)
      throw notFound(`${reachedThrough ?? `Collection ${collectionId}`} (this run is scoped to document ${scope.documentId}, which is not in it)`);
  }
  return collection;
}

/** The research tool context of one collection, with the run's document scope as a filter. */
function researchContext(scope: AgentToolScope, collection: Collection): ResearchToolContext {
  return {
    search: scope.search,
    store: scope.ctx.store,
    access: { projectId: collection.projectId, env: collection.env },
    collection,
    filter: scope.documentId ? { documentIds: [scope.documentId] } : {},
    sources: scope.sources,
  };
}

/** Note the collection of every source registered since the last call. */
function claimSources(scope: AgentToolScope, collectionId: string): void {
  for (const { source } of scope.sources.all()) {
    if (!scope.collectionOfChunk.has(source.chunkId)) scope.collectionOfChunk.set(source.chunkId, collectionId);
  }
}

const COLLECTION_PARAM = { type: 'string', description: 'Id of an allowed collection (listed in the system prompt)' };

/** The definition of a research tool (definitions do not depend on the collection, so any placeholder will do). */
const researchDefinition = (scope: AgentToolScope, build: (rc: ResearchToolContext) => AgentTool) =>
  build(researchContext(scope, { id: '', projectId: scope.projectId, env: 'live' } as Collection));

/** A research tool (search or scan_sections) over a collection the call names. */
function collectionTool(scope: AgentToolScope, name: 'search_collection' | 'scan_sections', researchName: 'search' | 'scan_sections'): AgentTool {
  const probe = researchDefinition(scope, (rc) => researchTools([researchName], rc)[0]!);
  const params = probe.definition.parameters as { properties: Record<string, unknown>; required: string[] };
  return {
    definition: {
      name,
      description: `${probe.definition.description} Name the collection to search with collectionId.`,
      parameters: { ...params, properties: { collectionId: COLLECTION_PARAM, ...params.properties }, required: ['collectionId', ...params.required] },
    },
    describe: (args) => ({ query: typeof args.query === 'string' ? args.query : JSON.stringify(args), tool: name }),
    run: (args, signal) =>
      recoverable(async () => {
        const { collectionId, ...rest } = args;
        const collection = await collectionInScope(scope, parseInput(collectionIdField, collectionId));
        const output = await researchTools([researchName], researchContext(scope, collection))[0]!.run(rest, signal);
        claimSources(scope, collection.id);
        return output;
      }),
  };
}

/** Read a section in full; its collection must be allowed. */
function sectionTool(scope: AgentToolScope): AgentTool {
  const probe = researchDefinition(scope, sectionReadTool);
  return {
    definition: probe.definition,
    describe: probe.describe,
    run: (args, signal) =>
      recoverable(async () => {
        const id = typeof args.section_id === 'string' ? args.section_id.trim() : '';
        const [section] = isUuid(id) ? await scope.ctx.store.getSections([id]) : [];
        if (!section) throw notFound(`Section ${id || '(none given)'} (use a section_id from search_collection or scan_sections results)`);
        const collection = await collectionInScope(scope, section.collectionId, `Section ${id}`);
        const output = await sectionReadTool(researchContext(scope, collection)).run(args, signal);
        claimSources(scope, collection.id);
        return output;
      }),
  };
}

const listArgs = z.object({
  collectionId: collectionIdField,
  limit: z.coerce.number().int().min(1).max(100).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

/** The ready documents of a collection: ids, file names, tags and sizes, newest first. */
function listDocumentsTool(scope: AgentToolScope): AgentTool {
  return {
    definition: {
      name: 'list_documents',
      description: 'List the ready documents of a collection (id, file name, tags, section count), newest first.',
      parameters: {
        type: 'object',
        properties: { collectionId: COLLECTION_PARAM, limit: { type: 'integer', minimum: 1, maximum: 100 }, offset: { type: 'integer', minimum: 0 } },
        required: ['collectionId'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ query: String(args.collectionId ?? ''), tool: 'list_documents' }),
    run: (args) =>
      recoverable(async () => {
        const input = parseInput(listArgs, args);
        const collection = await collectionInScope(scope, input.collectionId);
        const page = await scope.ctx.store.listDocuments(collection.id, { status: 'ready', limit: input.limit ?? 50, offset: input.offset ?? 0 });
        const documents = page.documents.filter((doc) => documentMatches(doc, scope.documentId ? { documentIds: [scope.documentId] } : {}));
        const lines = documents.map(
          (doc) => `document_id ${doc.id} | ${doc.filename} | ${doc.sectionCount ?? 0} sections${doc.tags.length ? ` | tags: ${doc.tags.join(', ')}` : ''}`,
        );
        const total = scope.documentId ? documents.length : page.total;
        return wrapUntrusted('list_documents', lines.length ? `${lines.join('\n')}\n(${lines.length} of ${total} ready documents)` : 'No ready documents.');
      }),
  };
}

const documentArgs = z.object({ documentId: z.string().trim().min(1).max(100) });

/** A document's details and its outline of sections (ids to read with get_section_chunks). */
function getDocumentTool(scope: AgentToolScope): AgentTool {
  return {
    definition: {
      name: 'get_document',
      description: "A document's file name, tags, metadata and outline of sections, each with a section_id to read with get_section_chunks.",
      parameters: { type: 'object', properties: { documentId: { type: 'string' } }, required: ['documentId'], additionalProperties: false },
    },
    describe: (args) => ({ query: String(args.documentId ?? ''), tool: 'get_document' }),
    run: (args) =>
      recoverable(async () => {
        const { documentId } = parseInput(documentArgs, args);
        const doc = isUuid(documentId) ? await scope.ctx.store.getDocument(documentId) : null;
        if (!doc || (scope.documentId && doc.id !== scope.documentId)) throw notFound(`Document ${documentId}`);
        await collectionInScope(scope, doc.collectionId, `Document ${documentId}`);
        const sections = await scope.ctx.store.listSections(doc.id);
        const outline = sections.map((s) => `${'  '.repeat(Math.max(0, s.level - 1))}section_id ${s.id} | ${s.title}`);
        const head = [
          `document_id ${doc.id}`,
          `file: ${doc.filename}`,
          `status: ${doc.status}`,
          `tags: ${doc.tags.join(', ') || 'none'}`,
          `metadata: ${JSON.stringify(doc.metadata)}`,
        ];
        return wrapUntrusted('get_document', `${head.join('\n')}\n\nSections:\n${outline.join('\n') || '(none)'}`);
      }),
  };
}

/** The enabled tools of an agent, in the spec's order. */
export function agentTools(toolset: AgentToolset, scope: AgentToolScope): AgentTool[] {
  const make: Record<AgentToolName, () => AgentTool> = {
    search_collection: () => collectionTool(scope, 'search_collection', 'search'),
    scan_sections: () => collectionTool(scope, 'scan_sections', 'scan_sections'),
    get_section_chunks: () => sectionTool(scope),
    list_documents: () => listDocumentsTool(scope),
    get_document: () => getDocumentTool(scope),
  };
  return (Object.keys(make) as AgentToolName[]).filter((name) => toolset[name]).map((name) => make[name]());
}
