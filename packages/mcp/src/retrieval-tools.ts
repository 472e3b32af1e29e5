import { RESEARCH_DEPTH_NAMES } from '@dossier/core/vocabulary';
import type { ResearchEvent } from '@dossier/core';
import { z } from 'zod';
import { sseMessages } from './sse.ts';
import { collectionId, defineTool, documentId, filterBody, filters, objects, READ, sectionId, ToolError, type ToolContext, WRITE, withId } from './define.ts';

/** Comments of the research stream that are only keep-alives. */
const SILENT_COMMENTS = new Set(['ping', 'connected']);

/** Run research over the SSE route: each tool call and waiting comment becomes a progress notification. */
async function research(ctx: ToolContext, id: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await ctx.api.send('POST', `/collections/${id}/research`, {
    json: body,
    headers: { accept: 'text/event-stream' },
    timeoutMs: null,
    signal: ctx.signal,
  });
  const progressLines: Promise<void>[] = [];
  const onComment = (text: string) => {
    if (!SILENT_COMMENTS.has(text)) progressLines.push(ctx.progress(text));
  };
  let answer = '';
  for await (const message of sseMessages(res.body as AsyncIterable<Uint8Array>, onComment)) {
    const event = message as ResearchEvent;
    if (event.type === 'tool_call') await ctx.progress(`${event.tool ?? 'search'}: ${event.query}`);
    else if (event.type === 'chunk') answer += event.content;
    else if (event.type === 'error') throw new ToolError(`research failed: ${event.message}`);
    else if (event.type === 'done') {
      await Promise.all(progressLines);
      return { answer, sessionId: event.sessionId, sources: event.sources, unresolvedCitations: event.unresolvedCitations ?? [] };
    }
  }
  throw new ToolError('the research stream ended before a done or error event (the server may have restarted)');
}

/** Search, section scan, research and reads of sections and Markdown. */
export const RETRIEVAL_TOOLS = [
  defineTool({
    name: 'svc_search',
    title: 'Search a collection',
    annotations: READ,
    scope: 'svc:read',
    description:
      'Hybrid (keyword + vector) search over the chunks of one collection. Returns ranked passages with their document, section and score; use the section ID with svc_get_section for more context.',
    input: {
      collectionId,
      query: z.string().min(1).max(10_000).describe('What to look for, in natural language or keywords'),
      limit: z.number().int().min(1).max(50).optional().describe('Number of results (1 to 50, default 10)'),
      ...filters,
    },
    output: { hits: objects('Ranked chunks with provenance (document, section, score)') },
    run: async ({ collectionId: id, query, limit, ...rest }, ctx) => ({
      hits: await ctx.api.json<unknown[]>('POST', `/collections/${id}/query`, { json: { q: query, limit, ...filterBody(rest) }, signal: ctx.signal }),
    }),
  }),
  defineTool({
    name: 'svc_scan_sections',
    title: 'Scan section titles and summaries',
    annotations: READ,
    scope: 'svc:read',
    description:
      'Search over the section titles and summaries of a collection: finds which parts of which documents deal with a topic. Read a hit with svc_get_section.',
    input: {
      collectionId,
      query: z.string().min(1).max(10_000).describe('The topic to look for'),
      topK: z.number().int().min(1).max(100).optional().describe('Number of sections (1 to 100, default 20)'),
      ...filters,
    },
    output: { results: objects('Matching sections with their document and score') },
    run: async ({ collectionId: id, query, topK, ...rest }, ctx) =>
      ctx.api.json('POST', `/collections/${id}/sections/scan`, { json: { query, top_k: topK, ...filterBody(rest) }, signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_research',
    title: 'Research a question',
    annotations: WRITE,
    scope: 'svc:full',
    description:
      'Agentic research: a model searches the collection in several steps and writes an answer citing its sources as [S1], [S2]… ' +
      'Slower and costlier than svc_search (credits per run: quick 0.5, balanced 1, deep 3, exhaustive 8); sends progress notifications and stops when the call is cancelled. Needs a model provider on the server or project.',
    input: {
      collectionId,
      question: z.string().min(1).max(10_000).describe('The question to answer from the collection'),
      depth: z
        .enum(RESEARCH_DEPTH_NAMES)
        .optional()
        .describe('quick (5 steps), balanced (10, default), deep (20, adds section scan and read), exhaustive (50)'),
      model: z.string().min(1).max(200).optional().describe("Model ID, e.g. claude-sonnet-4-6 or gpt-4.1 (default: the server's for the depth)"),
      ...filters,
    },
    output: {
      answer: z.string().describe('The answer in Markdown with [S#] citations'),
      sessionId: z.string(),
      sources: objects('The cited sources, S1 first'),
    },
    run: ({ collectionId: id, question, depth, model, ...rest }, ctx) => research(ctx, id, { q: question, depth, model, ...filterBody(rest) }),
  }),
  defineTool({
    name: 'svc_get_section',
    title: 'Read a section',
    annotations: READ,
    scope: 'svc:read',
    description: 'One section with its full Markdown content, title, level and document.',
    input: { sectionId },
    output: withId('Section'),
    run: ({ sectionId: id }, ctx) => ctx.api.json('GET', `/sections/${id}`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_get_section_chunks',
    title: 'Chunks of a section',
    annotations: READ,
    scope: 'svc:read',
    description: 'All chunks (the indexed text segments) of a section, in order.',
    input: { sectionId },
    output: { chunks: objects('Chunks in order') },
    run: async ({ sectionId: id }, ctx) => ({ chunks: await ctx.api.json<unknown[]>('GET', `/sections/${id}/chunks`, { signal: ctx.signal }) }),
  }),
  defineTool({
    name: 'svc_get_document_sections',
    title: 'Table of contents of a document',
    annotations: READ,
    scope: 'svc:read',
    description: 'The sections of a document in order (title, level, position, summary): its table of contents. Read one with svc_get_section.',
    input: { documentId },
    output: { sections: objects('Sections in document order') },
    run: async ({ documentId: id }, ctx) => ({ sections: await ctx.api.json<unknown[]>('GET', `/documents/${id}/sections`, { signal: ctx.signal }) }),
  }),
  defineTool({
    name: 'svc_get_document_markdown',
    title: 'Full Markdown of a document',
    annotations: READ,
    scope: 'svc:read',
    description:
      'The whole normalized Markdown of a processed document (can be long: prefer svc_get_document_sections and svc_get_section for large documents).',
    input: { documentId },
    run: async ({ documentId: id }, ctx) => (await ctx.api.send('GET', `/documents/${id}/markdown`, { signal: ctx.signal })).text(),
  }),
];
